/**
 * `npm run bench -- dev-up`: seconds from `slipway dev up` to every fake node Ready, binaries cached,
 * and (real_node_seconds) from there to the real node Ready with CoreDNS applied, images cached. The
 * real node needs the machine's one claim: with another directory's real node running, it is null
 * and real_node_skipped says why.
 * Floor: the part no orchestration can save — etcd plus kube-apiserver started with the same flags
 * until /readyz answers, measured in the same run.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinaries } from "../src/dev/binaries.ts";
import { down, up } from "../src/dev/cluster.ts";
import { componentSpecs } from "../src/dev/components.ts";
import { probeApiserver, probeHttp, waitFor } from "../src/dev/health.ts";
import { isRunning, startProcess, stopProcesses } from "../src/dev/processes.ts";
import { readState } from "../src/dev/state.ts";
import type { BenchFigures } from "./run.ts";

async function timeUp(): Promise<{
  seconds: number;
  realNodeSeconds?: number;
  skipped?: string;
  dir: string;
}> {
  const dir = join(await mkdtemp(join(tmpdir(), "slipway-bench-")), "dev");
  const started = performance.now();
  const ready: Partial<Record<"control plane" | "real node", number>> = {};
  const state = await up({ dir, onReady: (part) => (ready[part] = performance.now()) });
  const controlPlane = ready["control plane"] ?? performance.now();
  return {
    seconds: (controlPlane - started) / 1000,
    ...(ready["real node"] ? { realNodeSeconds: (ready["real node"] - controlPlane) / 1000 } : {}),
    ...(state.realNodeSkipped ? { skipped: state.realNodeSkipped } : {}),
    dir,
  };
}

/** etcd + kube-apiserver only, reusing a finished run's layout (its pki and ports, after it was stopped). */
async function timeApiserverFloor(dir: string): Promise<number> {
  const state = await readState(dir);
  if (!state) throw new Error("no state to reuse");
  await stopProcesses([...state.processes].reverse());
  await rm(join(dir, "etcd"), { recursive: true, force: true });
  const binaries = await ensureBinaries();
  const [etcd, apiserver] = componentSpecs({
    dir,
    ports: state.ports,
    pki: state.pki,
    kubeconfig: state.kubeconfig,
    binaries,
  });
  if (!etcd || !apiserver) throw new Error("unexpected component list");
  const started = performance.now();
  const etcdProcess = startProcess(etcd);
  await waitFor("etcd", () => probeHttp(`http://127.0.0.1:${state.ports.etcdClient}/health`), {
    timeoutMs: 60_000,
    intervalMs: 50,
    alive: () => isRunning(etcdProcess),
  });
  const apiserverProcess = startProcess(apiserver);
  await waitFor(
    "kube-apiserver",
    () => probeApiserver(`https://127.0.0.1:${state.ports.apiserver}/readyz`, state.pki),
    {
      timeoutMs: 120_000,
      intervalMs: 50,
      alive: () => isRunning(apiserverProcess),
    },
  );
  const seconds = (performance.now() - started) / 1000;
  await stopProcesses([apiserverProcess, etcdProcess]);
  return seconds;
}

export default async function bench(): Promise<BenchFigures> {
  await ensureBinaries();
  const { seconds, realNodeSeconds, skipped, dir } = await timeUp();
  // the real node goes first: the floor below stops the control plane's processes
  await down(dir);
  const floorDir = join(await mkdtemp(join(tmpdir(), "slipway-bench-")), "dev");
  await up({ dir: floorDir, realNode: false });
  const floor = await timeApiserverFloor(floorDir);
  await down(floorDir);
  return {
    seconds: Number(seconds.toFixed(2)),
    real_node_seconds: realNodeSeconds === undefined ? null : Number(realNodeSeconds.toFixed(2)),
    ...(skipped ? { real_node_skipped: skipped } : {}),
    floor_seconds: Number(floor.toFixed(2)),
    nodes: 3,
  };
}
