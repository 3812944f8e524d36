import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildsConfigFromEnvironment, ConfigError } from "../../../src/builds/config.ts";

const run = promisify(execFile);
let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "slipway-builds-config-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

describe("the builds configuration, read once at operator start", () => {
  it("none without $SLIPWAY_BUILDS_CONFIG; a valid file with its defaults filled", async () => {
    expect(buildsConfigFromEnvironment({})).toBeUndefined();
    const path = await file("good.yaml", "registry: {url: localhost:5000}\n");
    expect(buildsConfigFromEnvironment({ SLIPWAY_BUILDS_CONFIG: path })).toMatchObject({
      backend: "kaniko",
      registry: { url: "localhost:5000", insecure: false },
      maxConcurrentBuilds: 10,
    });
  });

  it("a bad file is one ConfigError line naming the file and the field (or why it cannot be read)", async () => {
    const cases: [string, RegExp][] = [
      [
        await file("bad-field.yaml", "registry: {url: localhost:5000}\nmaxConcurrentBuilds: 0\n"),
        /: maxConcurrentBuilds: /,
      ],
      [await file("no-registry.yaml", "backend: kaniko\n"), /: registry: /],
      [await file("not-yaml.yaml", "registry: [\n"), /\(SLIPWAY_BUILDS_CONFIG\): /],
      [join(dir, "absent.yaml"), /ENOENT/],
    ];
    for (const [path, rule] of cases) {
      let error: unknown;
      try {
        buildsConfigFromEnvironment({ SLIPWAY_BUILDS_CONFIG: path });
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message.startsWith(`builds configuration ${path} (SLIPWAY_BUILDS_CONFIG): `)).toBe(true);
      expect(message).toMatch(rule);
      expect(message).not.toContain("\n");
    }
  });

  it("slipway operator with a bad configuration stops at start with that one line", async () => {
    const kubeconfig = await file(
      "kubeconfig",
      "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n",
    );
    const config = await file("operator.yaml", "registry: {url: localhost:5000}\nbackend: docker\n");
    const outcome = await run(
      process.execPath,
      ["src/cli/main.ts", "operator", "--kubeconfig", kubeconfig, "--no-leader-elect"],
      { env: { ...process.env, SLIPWAY_BUILDS_CONFIG: config, SLIPWAY_DEBUG: "" }, timeout: 30_000 },
    ).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toMatch(
      new RegExp(`^error: builds configuration ${config} \\(SLIPWAY_BUILDS_CONFIG\\): backend: [^\\n]+\\n$`),
    );
  }, 60_000);
});
