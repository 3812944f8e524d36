/** Helpers every benchmark shares. */
import { spawn } from "node:child_process";
import { KubeConfig } from "@kubernetes/client-node";
import { privateControlPlane } from "../src/dev/cluster.ts";

/**
 * The control plane a benchmark runs on: the one SLIPWAY_BENCH_KUBECONFIG names, else a private one
 * in a temporary directory, which `stop` takes down and removes.
 */
export async function benchControlPlane(
  name: string,
  nodes?: number,
): Promise<{ kubeconfig: string; kubeConfig: KubeConfig; stop: () => Promise<void> }> {
  const external = process.env.SLIPWAY_BENCH_KUBECONFIG;
  if (!external) return privateControlPlane(`slipway-bench-${name}-`, nodes);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(external);
  return { kubeconfig: external, kubeConfig, stop: async () => {} };
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

/** Runs a child process that prints its figures as its last stdout line. */
export function figuresOf<T>(command: string, args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once("exit", (code) => {
      const line = out.trim().split("\n").at(-1) ?? "";
      if (code === 0 && line.startsWith("{")) resolve(JSON.parse(line));
      else reject(new Error(`${command} ${args[0]} exited with ${code}: ${out.slice(-500)}`));
    });
  });
}
