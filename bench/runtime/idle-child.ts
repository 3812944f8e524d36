/**
 * The runtime benchmark's idle child: a process that imports only what an operator running the echo
 * controller needs (the kubeconfig loader, the Manager, pino), caches every Widget, reconciles each once
 * (reads only), then idles. Prints one JSON line: RSS before start and with everything cached (after a GC
 * that returns memory to the OS, as the peer measures, and after a plain one), CPU at rest.
 * The bench runs it compiled, as the release runs (bench/runtime/tsconfig.idle-child.json):
 *   node --expose-gc .slipway/bench/runtime-build/bench/runtime/idle-child.js KUBECONFIG OBJECTS IDLE_SECONDS
 * (`node --expose-gc bench/runtime/idle-child.ts …` runs it type-stripped: +28 MB before start).
 */
import pino from "pino";
import { loadClusterAccess } from "../../src/kube/kubeconfig.ts";
import { Manager } from "../../src/kube/manager.ts";
import { echoController, widgetType } from "./echo.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const [kubeconfig, objectsArg, idleArg] = process.argv.slice(2);
const objects = Number(objectsArg);
const idleSeconds = Number(idleArg);

/**
 * Resident MB after a full GC. "last-resort" is V8's GC that also returns memory to the OS (it shrinks the
 * young generation and releases its pooled pages): what the peer's debug.FreeOSMemory() does for Go. A
 * plain gc() keeps the young generation's pages the initial list grew resident (docs/runtime.md).
 */
function residentMbAfterGc(flavor: "regular" | "last-resort"): number {
  globalThis.gc?.({ type: "major", execution: "sync", flavor });
  return process.memoryUsage().rss / 2 ** 20;
}

const kubeConfig = await loadClusterAccess({ kubeconfig: kubeconfig as string });
const baselinePlainGc = residentMbAfterGc("regular");
const baseline = residentMbAfterGc("last-resort");
let reconciled = 0;
const spec = echoController(() => {}, false);
const manager = new Manager({ kubeConfig, fieldManager: "bench-idle", log: pino({ level: "warn" }) });
manager.add({
  ...spec,
  reconcile: async (key, context) => {
    reconciled++;
    return spec.reconcile(key, context);
  },
});
await manager.start();
while (reconciled < objects) await sleep(100);
await sleep(2_000);
globalThis.gc?.();
const cpuBefore = process.cpuUsage();
await sleep(idleSeconds * 1000);
const cpu = process.cpuUsage(cpuBefore);
const cachedPlainGc = residentMbAfterGc("regular");
const cached = residentMbAfterGc("last-resort");
const figures = {
  cached: manager.cache.informer(widgetType).size,
  rss_mb: cached,
  rss_mb_plain_gc: cachedPlainGc,
  baseline_rss_mb: baseline,
  baseline_rss_mb_plain_gc: baselinePlainGc,
  heap_used_mb: process.memoryUsage().heapUsed / 2 ** 20,
  idle_cpu_seconds: (cpu.user + cpu.system) / 1e6,
};
await manager.stop();
process.stdout.write(`${JSON.stringify(figures)}\n`);
process.exit(0);
