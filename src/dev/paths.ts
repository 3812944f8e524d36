import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Root of the Slipway package (holds tools/, src/, deploy/). */
export const packageRoot = fileURLToPath(new URL("../..", import.meta.url));

/** Where built binaries are cached, outside any work tree, keyed by version below it. */
export function cacheDir(): string {
  return process.env.SLIPWAY_CACHE ?? join(homedir(), ".cache", "slipway");
}

/** The default state directory of `slipway dev`: `.slipway/dev` under the current directory. */
export function defaultDevDir(): string {
  return resolve(process.env.SLIPWAY_DEV_DIR ?? ".slipway/dev");
}
