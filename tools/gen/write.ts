/** Writes the generated deploy/ files under `root` (what `npm run generate` does). */
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { BundleOptions } from "../../src/bundle/bundle.ts";
import { chartDir } from "../../src/bundle/helm.ts";
import { crdDir, generatedFiles, valuesFile, valuesPath } from "./files.ts";

export interface WriteReport {
  /** Paths (relative to root) whose content changed or that were removed. */
  changed: string[];
  total: number;
}

export async function writeGenerated(root: string, options: BundleOptions): Promise<WriteReport> {
  const files = generatedFiles(options);
  const changed: string[] = [];
  // CRD files of kinds that are gone
  for (const dir of [crdDir, `${chartDir}/crds`]) {
    const present = await readdir(join(root, dir)).catch(() => [] as string[]);
    for (const name of present) {
      if (files.has(`${dir}/${name}`)) continue;
      await rm(join(root, dir, name));
      changed.push(`${dir}/${name}`);
    }
  }
  const existingValues = await readFile(join(root, valuesPath), "utf8").catch(() => undefined);
  files.set(valuesPath, valuesFile(existingValues, options));
  for (const [path, content] of files) {
    const target = join(root, path);
    if ((await readFile(target, "utf8").catch(() => undefined)) === content) continue;
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
    changed.push(path);
  }
  return { changed, total: files.size };
}
