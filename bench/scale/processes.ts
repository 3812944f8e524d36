/**
 * The two subjects of the scale bench as child processes on loopback: Slipway's `slipway operator`
 * (every controller, no leader election) and the controller-runtime peer's `scale` mode. Each serves
 * Prometheus metrics the bench scrapes the same way (both name them as controller-runtime does).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { freePorts } from "../../src/dev/ports.ts";
import { isWrite, metricSum } from "./figures.ts";

export interface Subject {
  name: string;
  pid: number;
  metricsUrl: string;
  /** Slipway's /readyz (its caches synced); the peer has none. */
  readyUrl?: string;
  /** SIGTERM and wait for the exit; its last stdout line (the peer prints its figures there). */
  stop(): Promise<string>;
  /** SIGKILL, as a crash or an evicted pod, and wait for the exit. */
  kill(): Promise<void>;
  /** Throws once the process has exited unasked (a step waiting on it would wait until its timeout). */
  assertRunning(): void;
}

const cli = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));

function subject(name: string, child: ChildProcess, metricsUrl: string, readyUrl?: string): Subject {
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-20_000);
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err = (err + chunk.toString()).slice(-4_000);
  });
  let asked = false;
  let crashed: string | undefined;
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  void exited.then((code) => {
    if (asked) return;
    crashed = `${name} exited with ${code}: ${err}`;
    process.stderr.write(`[bench scale] ${crashed}\n`);
  });
  return {
    name,
    pid: child.pid ?? 0,
    metricsUrl,
    ...(readyUrl ? { readyUrl } : {}),
    stop: async () => {
      asked = true;
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      await exited;
      clearTimeout(timer);
      return out.trim().split("\n").at(-1) ?? "";
    },
    kill: async () => {
      asked = true;
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
    assertRunning: () => {
      if (crashed) throw new Error(crashed);
    },
  };
}

/** `slipway operator` from the TypeScript sources (type stripping, as `npm run slipway` runs it). */
export async function startOperator(kubeconfig: string, env: Record<string, string>): Promise<Subject> {
  const [metricsPort, healthPort] = await freePorts(2);
  const args = [
    cli,
    "operator",
    "--kubeconfig",
    kubeconfig,
    "--no-leader-elect",
    "--metrics-port",
    String(metricsPort),
    "--health-port",
    String(healthPort),
  ];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return subject(
    "slipway",
    child,
    `http://127.0.0.1:${metricsPort}/metrics`,
    `http://127.0.0.1:${healthPort}/readyz`,
  );
}

/** The controller-runtime peer, `concurrency` workers per kind as Slipway's controllers have. */
export async function startPeer(
  binary: string,
  kubeconfig: string,
  registry: string,
  concurrency: number,
): Promise<Subject> {
  const [metricsPort] = await freePorts(1);
  const address = `127.0.0.1:${metricsPort}`;
  const child = spawn(binary, ["scale", kubeconfig, address, registry, String(concurrency)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  return subject("peer", child, `http://${address}/metrics`);
}

/** The subject's metrics text; empty while it is not serving yet. */
export async function scrape(subject: Subject): Promise<string> {
  try {
    const response = await fetch(subject.metricsUrl);
    return response.ok ? await response.text() : "";
  } catch {
    return "";
  }
}

export async function isReady(subject: Subject): Promise<boolean> {
  if (!subject.readyUrl) return true;
  try {
    return (await fetch(subject.readyUrl)).ok;
  } catch {
    return false;
  }
}

/** Resident memory (VmRSS) of a process, in MB, as the kernel counts it: the same for Node and Go. */
export async function residentMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1]) / 1024;
}

/** The figures of one scrape this bench reads. */
export function progressOf(text: string) {
  return {
    requests: metricSum(text, "rest_client_requests_total"),
    writes: metricSum(text, "rest_client_requests_total", isWrite),
    reconciles: metricSum(text, "controller_runtime_reconcile_total"),
    depth: metricSum(text, "workqueue_depth"),
    active: metricSum(text, "controller_runtime_active_workers"),
  };
}
