/**
 * The release runs compiled JavaScript (`npm run build` → dist/, the image's entry point
 * dist/cli/main.js): the build emits every module with its imports rewritten to .js, and the built
 * CLI starts without TypeScript (no type stripping: the .ts sources are not read). In the integration
 * project because compiling the whole tree takes minutes on a loaded machine.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { compiledRelease } from "../../support/compiled-release.ts";
import { productionSrcFiles } from "../../support/import-graph.ts";

const run = promisify(execFile);
let release = "";
const builtCli = () => join(release, "dist/cli/main.js");

describe("the compiled build of the release", () => {
  beforeAll(async () => {
    release = await compiledRelease();
  }, 600_000);

  it("emits the CLI's entry point, the operator's modules and the build Jobs' fetcher", () => {
    for (const file of [
      "cli/main.js",
      "cli/operator.js",
      "operator/main.js",
      "kube/manager.js",
      "builds/fetch-artifact.js",
    ])
      expect(existsSync(join(release, "dist", file)), file).toBe(true);
  });

  it("holds exactly the compiled src files production runs (test/support/import-graph.ts), nothing else", async () => {
    const dist = (await readdir(join(release, "dist"), { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => relative(release, join(entry.parentPath, entry.name)))
      .sort();
    const compiled = productionSrcFiles()
      .map((file) => file.replace(/^src\/(.+)\.ts$/, "dist/$1.js"))
      .sort();
    expect(compiled).toContain("dist/builds/fetch-artifact.js");
    expect(dist).toEqual(compiled);
  });

  it("starts from dist/ with type stripping off: `slipway operator --help`", async () => {
    const { stdout } = await run(process.execPath, [
      "--no-experimental-strip-types",
      builtCli(),
      "operator",
      "--help",
    ]);
    expect(stdout).toContain("Usage: slipway operator [options]");
    expect(stdout).toContain("--metrics-port <port>");
  }, 60_000);

  it("the server's command too: `slipway server --help`", async () => {
    const { stdout } = await run(process.execPath, [
      "--no-experimental-strip-types",
      builtCli(),
      "server",
      "--help",
    ]);
    expect(stdout).toContain("Usage: slipway server [options]");
  }, 60_000);
});
