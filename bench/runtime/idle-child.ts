/**
 * The runtime benchmark's idle child: a process that imports only what an operator running the echo
 * controller needs (the kubeconfig loader, the Manager, pino), caches every Widget, reconciles each once
 * (reads only), then idles. Prints one JSON line: RSS before start and with everything cached, CPU at rest.
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

const kubeConfig = await loadClusterAccess({ kubeconfig: kubeconfig as string });
globalThis.gc?.();
const baselineRss = process.memoryUsage().rss;
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
globalThis.gc?.();
const memory = process.memoryUsage();
const figures = {
  cached: manager.cache.informer(widgetType).size,
  rss_mb: memory.rss / 2 ** 20,
  baseline_rss_mb: baselineRss / 2 ** 20,
  heap_used_mb: memory.heapUsed / 2 ** 20,
  idle_cpu_seconds: (cpu.user + cpu.system) / 1e6,
};
await manager.stop();
process.stdout.write(`${JSON.stringify(figures)}\n`);
process.exit(0);
