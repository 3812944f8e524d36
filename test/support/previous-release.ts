/**
 * The sources of the release before Slipway's kinds moved to v1beta1, from this repository's own
 * history: the parent of the commit that changed `pipelines.slipway.dev`'s version from v1alpha1,
 * extracted (src/, test/, tools/, package.json) under `.slipway/previous/<commit>/`, where Node finds this
 * tree's node_modules up the directories. A test runs its processes as "the operator before the
 * upgrade". Extracted once per commit.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { packageRoot } from "../../src/dev/paths.ts";

const exec = promisify(execFile);
const git = (...args: string[]) => exec("git", ["-C", packageRoot, ...args], { maxBuffer: 256 << 20 });

/** The commit of the last release serving v1alpha1 only. */
export async function previousReleaseCommit(): Promise<string> {
  const { stdout } = await git(
    "log",
    "-n1",
    "--format=%H",
    "-S",
    'export const version = "v1alpha1";',
    "--",
    "src/apis/pipelines/common.ts",
  );
  const changed = stdout.trim();
  if (!changed)
    throw new Error(
      "no commit moved pipelines.slipway.dev off v1alpha1 in this history (a shallow clone? fetch the whole history)",
    );
  return (await git("rev-parse", `${changed}^`)).stdout.trim();
}

/** The directory of the previous release's sources (src/, test/, tools/, package.json). */
export async function previousRelease(): Promise<string> {
  const commit = await previousReleaseCommit();
  const parent = join(packageRoot, ".slipway", "previous");
  const dir = join(parent, commit);
  if (existsSync(join(dir, "package.json"))) return dir;
  await mkdir(parent, { recursive: true });
  const staging = await mkdtemp(join(parent, ".extracting-"));
  try {
    const archive = join(staging, "sources.tar");
    await git(
      "archive",
      "--format=tar",
      `--output=${archive}`,
      commit,
      "src",
      "test",
      "tools",
      "package.json",
    );
    await exec("tar", ["-xf", archive, "-C", staging]);
    await rm(archive);
    await rename(staging, dir).catch(async (error) => {
      if (!existsSync(join(dir, "package.json"))) throw error; // another test extracted it first
      await rm(staging, { recursive: true, force: true });
    });
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
  return dir;
}
