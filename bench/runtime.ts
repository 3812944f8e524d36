/**
 * The controller runtime on a private control plane:
 * - seconds: a Manager reconciling 2,000 Widgets (each reconcile writes status once), from start()
 *   until all 2,000 writes are done; floor_seconds: a plain REST client making the same 2,000
 *   status writes at the same concurrency, in the same run (mean of one run before and one after);
 * - writes/reads per object during that reconcile (reads exclude the informer's own list and watch);
 * - RSS and idle CPU of a separate operator process caching 10,000 Widgets;
 * - the same for the controller-runtime peer (`bench/peers/controller-runtime`, Go): the same reconciler
 *   at the same concurrency on the same control plane. Slipway and the peer run twice each, in the order
 *   Slipway, peer, peer, Slipway, with a floor run before, between and after (each floor run also makes
 *   every status differ from its spec again, so every subject run writes all 2,000); seconds are means.
 */
import { execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { KubeConfig } from "@kubernetes/client-node";
import { Type } from "@sinclair/typebox";
import pino from "pino";
import { toCrd } from "../src/apis/crd.ts";
import { defineKind, type Resource } from "../src/apis/kind.ts";
import { down, up } from "../src/dev/cluster.ts";
import { resourcePath } from "../src/kube/keys.ts";
import { Manager } from "../src/kube/manager.ts";
import { RestClient } from "../src/kube/rest.ts";
import { goPeer } from "./peers/build.ts";
import { concurrency, echoController, namespace, widgetNames, widgetType } from "./runtime/echo.ts";
import { figuresOf, pool, sleep } from "./support.ts";

const run = promisify(execFile);

/** The benchmark's own kind (its own group, so it never meets the tests' Widget CRD): status echoes spec. */
const Widget = defineKind({
  ...widgetNames,
  singular: "widget",
  shortNames: ["bwdg"],
  scope: "Namespaced",
  description: "An object the runtime benchmark reconciles.",
  spec: Type.Object({ size: Type.Integer({ minimum: 0 }) }),
  status: Type.Object({ size: Type.Optional(Type.Integer()) }),
  printerColumns: [{ name: "Size", type: "integer", jsonPath: ".status.size" }],
});
type WidgetObject = Resource<typeof Widget>;
const widget = (namespace: string, name: string, size: number): WidgetObject => ({
  apiVersion: Widget.apiVersion,
  kind: Widget.kind,
  metadata: { name, namespace },
  spec: { size },
});

const objects = 2_000;
const cachedObjects = 10_000;
const idleSeconds = 30;

const names = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `w${from + i}`);

async function createWidgets(rest: RestClient, list: string[]): Promise<void> {
  await pool(list, 16, (name) =>
    rest.request("POST", resourcePath(widgetType, { namespace }), { body: widget(namespace, name, 1) }),
  );
}

function statusWrite(rest: RestClient, name: string, size: number): Promise<unknown> {
  return rest.request("PATCH", resourcePath(widgetType, { namespace, name, subresource: "status" }), {
    query: { fieldManager: "bench-floor", force: true },
    contentType: "application/apply-patch+yaml",
    body: {
      apiVersion: Widget.apiVersion,
      kind: Widget.kind,
      metadata: { name, namespace },
      status: { size },
    },
  });
}

const root = fileURLToPath(new URL("..", import.meta.url));
const tsc = (project: string) =>
  run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", project], { cwd: root });

/**
 * The idle child compiled as the release is (tsconfig.build.json's options: bench/runtime/tsconfig.idle-child.json
 * emits it and the src/ modules it imports, nothing else, into .slipway/bench/runtime-build/), so it pays no
 * type stripping; compiled on every run, like builtCli.
 */
async function builtIdleChild(): Promise<string> {
  await tsc("bench/runtime/tsconfig.idle-child.json");
  return join(root, ".slipway/bench/runtime-build/bench/runtime/idle-child.js");
}

function runIdleChild(idleChild: string, kubeconfig: string) {
  return figuresOf<{
    cached: number;
    rss_mb: number;
    rss_mb_plain_gc: number;
    baseline_rss_mb: number;
    baseline_rss_mb_plain_gc: number;
    heap_used_mb: number;
    idle_cpu_seconds: number;
  }>(process.execPath, [
    "--expose-gc",
    "--no-experimental-strip-types",
    idleChild,
    kubeconfig,
    String(cachedObjects),
    String(idleSeconds),
  ]);
}

/**
 * The resident memory of a real `slipway operator` (every controller, no leader election, ops on free ports)
 * when it logs "operator starting", i.e. just before its Manager starts: read from /proc, no forced GC.
 * `cli` is the release's compiled entry (dist/, `npm run build`) or the TypeScript one.
 */
function operatorRssBeforeStart(kubeconfig: string, cli: string): Promise<number> {
  const ports = ["--metrics-port", "0", "--health-port", "0"];
  const args = [
    cli,
    "operator",
    "--kubeconfig",
    kubeconfig,
    "--namespace",
    namespace,
    "--no-leader-elect",
    ...ports,
  ];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "ignore"] });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", async (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes("operator starting")) return;
      child.stdout.removeAllListeners("data");
      const status = await readFile(`/proc/${child.pid}/status`, "utf8");
      child.kill("SIGTERM");
      resolve(Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1]) / 1024);
    });
    child.once("exit", (code) =>
      reject(new Error(`slipway operator exited with ${code}: ${out.slice(-500)}`)),
    );
  });
}

/**
 * The release's entry point, compiled as `npm run build` does (the image runs it). Compiled on
 * every run, so the figures are never those of an older dist/.
 */
async function builtCli(): Promise<string> {
  await tsc("tsconfig.build.json");
  return join(root, "dist/cli/main.js");
}

interface PeerReconcile {
  seconds: number;
  writes: number;
  reads: number;
}
interface PeerIdle {
  rss_mb_before_start: number;
  rss_mb: number;
  idle_cpu_seconds: number;
  reconciled: number;
}

const peerRun = (peer: string, kubeconfig: string) =>
  figuresOf<PeerReconcile>(peer, ["reconcile", kubeconfig, String(objects), String(concurrency)]);
const peerIdle = (peer: string, kubeconfig: string) =>
  figuresOf<PeerIdle>(peer, ["idle", kubeconfig, String(cachedObjects), String(idleSeconds)]);

/** Installs the Widget CRD and waits until the API server serves it. */
async function installWidgetKind(rest: RestClient): Promise<void> {
  await rest.request(
    "PATCH",
    `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${Widget.plural}.${Widget.group}`,
    {
      query: { fieldManager: "bench", force: true },
      contentType: "application/apply-patch+yaml",
      body: toCrd(Widget),
    },
  );
  for (let served = false; !served; ) {
    served = await rest.request("GET", resourcePath(widgetType, { namespace })).then(
      () => true,
      () => false,
    );
    if (!served) await sleep(200);
  }
}

/** The floor: the same number of status writes at the same concurrency, with no runtime. */
async function floorRun(rest: RestClient, size: number): Promise<number> {
  const floorStart = performance.now();
  await pool(names(0, objects), concurrency, (name) => statusWrite(rest, name, size));
  return (performance.now() - floorStart) / 1000;
}

/** The runtime: list+watch, queue, reconcile from the cache, one status write each. */
async function runtimeRun(kubeConfig: KubeConfig) {
  let written = 0;
  // no client-side rate limit, as the peer (QPS < 0): the bench measures the runtime, not the bucket
  const manager = new Manager({
    kubeConfig,
    fieldManager: "bench",
    clientRateLimit: false,
    log: pino({ level: "warn" }),
  });
  manager.add(echoController(() => written++, true));
  const start = performance.now();
  await manager.start();
  while (written < objects) await sleep(5);
  const seconds = (performance.now() - start) / 1000;
  await sleep(1_000); // let the status writes' watch events arrive: they must not cause more requests
  const byMethod = await manager.metrics.requestsByMethod();
  const informer = manager.cache.informer(widgetType);
  const writes = (byMethod.PATCH ?? 0) + (byMethod.POST ?? 0) + (byMethod.PUT ?? 0) + (byMethod.DELETE ?? 0);
  const reads = (byMethod.GET ?? 0) - informer.stats.listPages - informer.stats.watches;
  await manager.stop();
  return { seconds, writes, reads };
}

const rounded = (value: number, digits = 3) => Number(value.toFixed(digits));
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** Floor, Slipway, floor, peer, floor, peer, floor, Slipway, floor: each subject twice, first and last alternating. */
async function sideBySide(rest: RestClient, kubeConfig: KubeConfig, kubeconfig: string, peer: string) {
  const floors: number[] = [];
  const slipway: Awaited<ReturnType<typeof runtimeRun>>[] = [];
  const peers: PeerReconcile[] = [];
  const order = ["slipway", "peer", "peer", "slipway"] as const;
  for (const subject of order) {
    floors.push(await floorRun(rest, 1000 * (floors.length + 1)));
    if (subject === "slipway") slipway.push(await runtimeRun(kubeConfig));
    else peers.push(await peerRun(peer, kubeconfig));
  }
  floors.push(await floorRun(rest, 1000 * (floors.length + 1)));
  return { floors, slipway, peers };
}

export default async function bench() {
  const cli = await builtCli();
  const idleChild = await builtIdleChild();
  const peer = await goPeer("controller-runtime");
  const dir = await mkdtemp(join(tmpdir(), "slipway-bench-runtime-"));
  try {
    const state = await up({ dir, nodes: 1, realNode: false });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(state.kubeconfig);
    const rest = new RestClient(kubeConfig);
    await installWidgetKind(rest);
    await createWidgets(rest, names(0, objects));
    const { floors, slipway, peers } = await sideBySide(rest, kubeConfig, state.kubeconfig, peer);
    await createWidgets(rest, names(objects, cachedObjects));
    const idle = await runIdleChild(idleChild, state.kubeconfig);
    const idlePeer = await peerIdle(peer, state.kubeconfig);
    const operatorRss = await operatorRssBeforeStart(state.kubeconfig, cli);
    const operatorRssTs = await operatorRssBeforeStart(
      state.kubeconfig,
      fileURLToPath(new URL("../src/cli/main.ts", import.meta.url)),
    );
    rest.close();
    const seconds = mean(slipway.map((run) => run.seconds));
    const peerSeconds = mean(peers.map((run) => run.seconds));
    return {
      seconds: rounded(seconds),
      floor_seconds: rounded(mean(floors)),
      floor_seconds_each: floors.map((value) => rounded(value)),
      seconds_each: slipway.map((run) => rounded(run.seconds)),
      objects,
      concurrency,
      writes_per_object: rounded(mean(slipway.map((run) => run.writes)) / objects),
      reads_per_object: rounded(mean(slipway.map((run) => run.reads)) / objects),
      cached_objects: idle.cached,
      rss_mb_10k_cached: rounded(idle.rss_mb, 1),
      rss_mb_before_start: rounded(idle.baseline_rss_mb, 1),
      rss_mb_10k_cached_plain_gc: rounded(idle.rss_mb_plain_gc, 1),
      rss_mb_before_start_plain_gc: rounded(idle.baseline_rss_mb_plain_gc, 1),
      operator_rss_mb_before_start: rounded(operatorRss, 1),
      operator_rss_mb_before_start_type_stripped: rounded(operatorRssTs, 1),
      heap_used_mb_10k_cached: rounded(idle.heap_used_mb, 1),
      idle_cpu_seconds_30s_10k: rounded(idle.idle_cpu_seconds),
      peer: "controller-runtime v0.25.2",
      peer_seconds: rounded(peerSeconds),
      peer_seconds_each: peers.map((run) => rounded(run.seconds)),
      peer_writes_per_object: rounded(mean(peers.map((run) => run.writes)) / objects),
      peer_reads_per_object: rounded(mean(peers.map((run) => run.reads)) / objects),
      peer_cached_objects: idlePeer.reconciled,
      peer_rss_mb_10k_cached: rounded(idlePeer.rss_mb, 1),
      peer_rss_mb_before_start: rounded(idlePeer.rss_mb_before_start, 1),
      peer_idle_cpu_seconds_30s_10k: rounded(idlePeer.idle_cpu_seconds),
      ratio_to_peer: rounded(seconds / peerSeconds),
    };
  } finally {
    await down(dir);
    await rm(dir, { recursive: true, force: true });
  }
}
