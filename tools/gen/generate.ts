/**
 * npm run generate: writes deploy/crds/*, deploy/slipway.yaml and the Helm chart from the kinds
 * (src/apis/index.ts) and the controllers. Removes generated CRD files of kinds that are gone.
 */
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { crdDir, generatedFiles, valuesFile, valuesPath } from "../../src/bundle/files.ts";
import { chartDir } from "../../src/bundle/helm.ts";
import { releaseOptions } from "../../src/bundle/release.ts";

const root = join(import.meta.dirname, "../..");
const options = releaseOptions();
const files = generatedFiles(options);

for (const dir of [crdDir, `${chartDir}/crds`]) {
  const present = await readdir(join(root, dir)).catch(() => [] as string[]);
  for (const name of present) {
    if (!files.has(`${dir}/${name}`)) await rm(join(root, dir, name));
  }
}
const existingValues = await readFile(join(root, valuesPath), "utf8").catch(() => undefined);
files.set(valuesPath, valuesFile(existingValues, options));

for (const [path, content] of files) {
  const target = join(root, path);
  await mkdir(dirname(target), { recursive: true });
  const before = await readFile(target, "utf8").catch(() => undefined);
  if (before !== content) {
    await writeFile(target, content);
    console.log(`wrote ${relative(root, target)}`);
  }
}
console.log(
  `${files.size} generated files up to date (${options.kinds.length} kinds, ${options.controllers.length} controllers)`,
);
