/**
 * The KFP API server for tests and benchmarks (kfp-server.py next to this file), run by the kfp
 * SDK's venv (tools/setup/40-kfp-sdk.sh; kfp-server-api is installed there as a dependency of kfp):
 * started on 127.0.0.1, with its controls.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { packageRoot } from "../../../src/dev/paths.ts";

export const setupScript = "tools/setup/40-kfp-sdk.sh";

/** The pinned version, read from the set-up script (one place says it). */
export const kfpVersion = /^KFP_VERSION=(\S+)$/m.exec(
  readFileSync(join(packageRoot, setupScript), "utf8"),
)?.[1];

/** The venv's python, or undefined when the set-up script has not run. */
export function kfpPython(): string | undefined {
  const venv = join(process.env.SLIPWAY_CACHE ?? join(homedir(), ".cache/slipway"), `kfp-sdk-${kfpVersion}`);
  return existsSync(join(venv, ".installed")) ? join(venv, "bin/python") : undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: the server's JSON state
type Any = any;

export interface KfpServer {
  endpoint: string;
  state(): Promise<Any>;
  requests(): Promise<{ method: string; path: string; query: Any; body: Any; authorized: boolean }[]>;
  /** Sets a run's state (and its task_details) as KFP's persistence agent would. */
  finishRun(id: string, state: string, taskDetails?: Any[], finishedAt?: string): Promise<void>;
  /** Starts a run of the recurring run, as KFP's scheduled-workflow controller would; the run. */
  startScheduledRun(recurringRunId: string): Promise<Any>;
  /** The next `count` API requests (of `only`'s method and path, when given) fail with `status`. */
  failNext(count: number, status?: number, only?: { method: string; path: string }): Promise<void>;
  stop(): Promise<void>;
}

function listening(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`the KFP test server did not start: ${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const port = /listening (\d+)/.exec(output)?.[1];
      if (port) {
        clearTimeout(timer);
        resolve(Number(port));
      }
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.on("exit", (code) => reject(new Error(`the KFP test server exited (${code}): ${output}`)));
  });
}

export async function startKfpServer(
  python: string,
  options: { token?: string; namespace?: string } = {},
): Promise<KfpServer> {
  const args = [join(import.meta.dirname, "kfp-server.py")];
  if (options.token) args.push("--token", options.token);
  if (options.namespace) args.push("--namespace", options.namespace);
  const child = spawn(python, args, { stdio: ["ignore", "pipe", "pipe"] });
  const port = await listening(child);
  const endpoint = `http://127.0.0.1:${port}`;
  const control = async (method: string, path: string, body?: unknown): Promise<Any> => {
    const response = await fetch(`${endpoint}/test/${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    if (!response.ok) throw new Error(`KFP test server ${method} ${path}: ${await response.text()}`);
    return response.json();
  };
  return {
    endpoint,
    state: () => control("GET", "state"),
    requests: () => control("GET", "requests"),
    finishRun: async (id, state, taskDetails, finishedAt = "2026-01-01T00:01:00Z") => {
      await control("POST", `runs/${id}`, {
        state,
        finished_at: finishedAt,
        ...(taskDetails ? { task_details: taskDetails } : {}),
      });
    },
    startScheduledRun: (recurringRunId) => control("POST", `recurringruns/${recurringRunId}/runs`, {}),
    failNext: async (count, status = 503, only) => {
      await control("POST", "fail", { count, status, ...only });
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
