import { execFile } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packageRoot } from "../../src/dev/paths.ts";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `bin/slipway` as a user would; resolves with its exit code and output (never rejects on a non-zero exit). */
export function slipway(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 300_000,
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      join(packageRoot, "bin/slipway"),
      args,
      { env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * A fresh dev directory (under a new temporary one) and a runner of `slipway dev --dir <it> ...`,
 * without a real node (the machine has one, and the shared plane holds it).
 */
export async function privateDev(prefix: string) {
  const dir = join(await mkdtemp(join(tmpdir(), prefix)), "dev");
  return {
    dir,
    dev: (...args: string[]) => slipway(["dev", "--dir", dir, ...args], { SLIPWAY_REAL_NODE: "0" }),
  };
}
