/**
 * What a real `slipway operator` process has loaded when its Manager is about to start: only what its
 * controllers use at rest. The heavy dependencies a controller needs only for some work (a cloud SDK
 * for an artifact, CloudEvents for a sink, x509 for a certificate, YAML for a file) are loaded by
 * that work (src/lib/on-first-use.ts), so none of them is here.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const cli = fileURLToPath(new URL("../../../src/cli/main.ts", import.meta.url));

/** A module hook that appends every URL the process loads (ESM and CommonJS) to $LOADED_LOG. */
const recordLoads = `data:text/javascript,${encodeURIComponent(`
import { registerHooks } from "node:module";
import { appendFileSync } from "node:fs";
registerHooks({ load(url, context, next) { appendFileSync(process.env.LOADED_LOG, url + "\\n"); return next(url, context); } });
`)}`;

/** The packages (node_modules/<name>) a process has loaded, from the URLs it logged. */
function packagesOf(urls: string[]): Set<string> {
  const names = urls.map((url) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1]);
  return new Set(names.filter((name): name is string => name !== undefined));
}

async function loadedBeforeStart(dir: string): Promise<string[]> {
  // JSON, as in a pod the operator reads no file at all (in-cluster credentials)
  const kubeconfig = join(dir, "kubeconfig.json");
  await writeFile(
    kubeconfig,
    JSON.stringify({
      clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:1" } }],
      users: [{ name: "u", user: { token: "t" } }],
      contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
      "current-context": "x",
    }),
  );
  const log = join(dir, "loaded.log");
  const args = ["--import", recordLoads, cli, "operator", "--kubeconfig", kubeconfig, "--namespace", "x"];
  const ports = ["--no-leader-elect", "--metrics-port", "0", "--health-port", "0"];
  const child = spawn(process.execPath, [...args, ...ports], {
    env: { ...process.env, LOADED_LOG: log },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("operator starting")) resolve();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once("exit", (code) => reject(new Error(`slipway operator exited with ${code}: ${out}`)));
  });
  child.kill("SIGKILL");
  return (await readFile(log, "utf8")).split("\n");
}

describe("a slipway operator at rest", () => {
  let dir = "";
  let urls: string[] = [];
  let loaded = new Set<string>();
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "slipway-loaded-"));
    urls = await loadedBeforeStart(dir);
    loaded = packagesOf(urls);
  }, 60_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("has loaded the runtime's own dependencies", () => {
    expect(loaded).toContain("pino");
    expect(loaded).toContain("prom-client");
  });

  it("has loaded prom-client's four classes, not its index (Summary, Pushgateway, default metrics)", () => {
    const promClient = urls.filter((url) => url.includes("node_modules/prom-client/"));
    const modules = promClient.map((url) => url.replace(/^.*node_modules\/prom-client\//, ""));
    expect(modules).toEqual(
      expect.arrayContaining(["lib/registry.js", "lib/counter.js", "lib/histogram.js"]),
    );
    expect(modules).not.toContain("index.js");
    expect(modules.filter((module) => /summary|pushgateway|cluster|defaultMetrics/.test(module))).toEqual([]);
  });

  it("has loaded none of the dependencies only some work needs", () => {
    const onFirstUse = [
      "@aws-sdk/client-s3",
      "@google-cloud/storage",
      "@google-cloud/aiplatform",
      "google-auth-library",
      "@peculiar/x509",
      "reflect-metadata",
      "cloudevents",
      "yaml",
      "@kubernetes/client-node",
      "fastify",
    ];
    expect(onFirstUse.filter((name) => loaded.has(name))).toEqual([]);
  });
});
