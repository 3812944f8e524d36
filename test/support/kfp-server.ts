/**
 * The test KFP API server (test/support/kfp-server.py, in the kfp SDK's venv, where kfp-server-api
 * is installed as a dependency of kfp): started on 127.0.0.1 for one test file, with its controls.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { packageRoot } from "../../src/dev/paths.ts";

// biome-ignore lint/suspicious/noExplicitAny: the server's JSON state
type Any = any;

export interface KfpServer {
  endpoint: string;
  state(): Promise<Any>;
  requests(): Promise<{ method: string; path: string; query: Any; body: Any; authorized: boolean }[]>;
  /** Sets a run's state (and its task_details) as KFP's persistence agent would. */
  finishRun(id: string, state: string, taskDetails?: Any[]): Promise<void>;
  /** The next `count` API requests fail with `status`. */
  failNext(count: number, status?: number): Promise<void>;
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
  const args = [join(packageRoot, "test/support/kfp-server.py")];
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
    finishRun: async (id, state, taskDetails) => {
      await control("POST", `runs/${id}`, {
        state,
        finished_at: "2026-01-01T00:01:00Z",
        ...(taskDetails ? { task_details: taskDetails } : {}),
      });
    },
    failNext: async (count, status = 503) => {
      await control("POST", "fail", { count, status });
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
