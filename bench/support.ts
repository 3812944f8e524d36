/** Helpers every benchmark shares. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { down, up } from "../src/dev/cluster.ts";

/**
 * The control plane a benchmark runs on: the one SLIPWAY_BENCH_KUBECONFIG names, else a private one
 * in a temporary directory, which `stop` takes down and removes.
 */
export async function benchControlPlane(
  name: string,
  nodes?: number,
): Promise<{ kubeconfig: string; kubeConfig: KubeConfig; stop: () => Promise<void> }> {
  const external = process.env.SLIPWAY_BENCH_KUBECONFIG;
  const dir = external ? undefined : join(await mkdtemp(join(tmpdir(), `slipway-bench-${name}-`)), "dev");
  const kubeconfig = external ?? (await up({ dir: dir as string, ...(nodes ? { nodes } : {}) })).kubeconfig;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfig);
  const stop = async () => {
    if (!dir) return;
    await down(dir);
    await rm(join(dir, ".."), { recursive: true, force: true });
  };
  return { kubeconfig, kubeConfig, stop };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every `pollMs` until it holds; throws naming `what` after `timeoutMs`. */
export async function until(
  what: string,
  check: () => Promise<boolean>,
  options: { timeoutMs?: number; pollMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 300_000);
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(options.pollMs ?? 100);
  }
}

/** Runs `work` on every item with at most `width` at once (the same concurrency for a floor and its subject). */
export async function pool<T>(items: T[], width: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
