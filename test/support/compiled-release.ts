/**
 * The release's compiled JavaScript for tests that run what the image runs (its entry point
 * dist/cli/main.js, the build Jobs' dist/builds/fetch-artifact.js): `tsc -p tsconfig.build.json` into
 * `.slipway/release/<hash of the sources and the build's configuration>/`, laid out as the image's /app
 * (dist/ next to package.json, node_modules found up the tree). Built once per source tree: a test file
 * that finds it reuses it; two that build at once each build into their own directory and the first
 * rename wins, so neither sees a half-written tree. Trees of earlier sources are removed then.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = fileURLToPath(new URL("../..", import.meta.url));
const releases = join(root, ".slipway", "release");
const buildInputs = ["package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json"];

async function sourcesHash(): Promise<string> {
  const sources = (await readdir(join(root, "src"), { recursive: true }))
    .filter((file) => file.endsWith(".ts"))
    .sort()
    .map((file) => join("src", file));
  const hash = createHash("sha256");
  for (const file of [...buildInputs, ...sources])
    hash.update(`${file}\0`).update(await readFile(join(root, file)));
  return hash.digest("hex").slice(0, 16);
}

/** The directory holding `dist/` and `package.json` of the current sources, compiled if not yet. */
export async function compiledRelease(): Promise<string> {
  const dir = join(releases, await sourcesHash());
  if (existsSync(join(dir, "dist", "cli", "main.js"))) return dir;
  await mkdir(releases, { recursive: true });
  const staging = await mkdtemp(join(releases, ".building-"));
  try {
    await promisify(execFile)(
      process.execPath,
      [
        join(root, "node_modules/typescript/bin/tsc"),
        "-p",
        "tsconfig.build.json",
        "--outDir",
        join(staging, "dist"),
      ],
      { cwd: root },
    );
    await copyFile(join(root, "package.json"), join(staging, "package.json"));
    await rename(staging, dir).catch((error: NodeJS.ErrnoException) => {
      if (!existsSync(join(dir, "dist", "cli", "main.js"))) throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  for (const earlier of await readdir(releases))
    if (!earlier.startsWith(".") && join(releases, earlier) !== dir)
      await rm(join(releases, earlier), { recursive: true, force: true });
  return dir;
}
