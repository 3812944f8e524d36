/**
 * The release runs compiled JavaScript (`npm run build` → dist/, the image's entry point
 * dist/cli/main.js): the build emits every module with its imports rewritten to .js, and the built
 * CLI starts without TypeScript (no type stripping: the .ts sources are not read).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const builtCli = `${root}dist/cli/main.js`;

describe("the compiled build of the release", () => {
  beforeAll(async () => {
    await run(process.execPath, [`${root}node_modules/typescript/bin/tsc`, "-p", "tsconfig.build.json"], {
      cwd: root,
    });
  }, 600_000);

  it("emits the CLI's entry point and the operator's modules", () => {
    for (const file of ["cli/main.js", "cli/operator.js", "operator/main.js", "kube/manager.js"])
      expect(existsSync(`${root}dist/${file}`), file).toBe(true);
  });

  it("starts from dist/ with type stripping off: `slipway operator --help`", async () => {
    const { stdout } = await run(process.execPath, [
      "--no-experimental-strip-types",
      builtCli,
      "operator",
      "--help",
    ]);
    expect(stdout).toContain("Usage: slipway operator [options]");
    expect(stdout).toContain("--metrics-port <port>");
  }, 60_000);

  it("the server's command too: `slipway server --help`", async () => {
    const { stdout } = await run(process.execPath, [
      "--no-experimental-strip-types",
      builtCli,
      "server",
      "--help",
    ]);
    expect(stdout).toContain("Usage: slipway server [options]");
  }, 60_000);
});
