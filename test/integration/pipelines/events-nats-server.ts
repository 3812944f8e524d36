/**
 * A real nats-server (built by tools/setup/25-nats.sh) on 127.0.0.1 for the NATS sink test, with
 * JetStream storing in a directory, so it can be stopped and started again on the same port with its
 * streams kept; and the CloudEvent of a NATS message, read by the CloudEvents SDK's own parser.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import type { MsgHdrs } from "@nats-io/transport-node";
import { type CloudEvent, HTTP } from "cloudevents";
import { cacheDir, packageRoot } from "../../../src/dev/paths.ts";

const setupScript = "tools/setup/25-nats.sh";

/** The cached nats-server of the version the setup script pins; undefined when it is not built. */
export function natsServerBinary(): string | undefined {
  const script = readFileSync(join(packageRoot, setupScript), "utf8");
  const version = /^NATS_SERVER_VERSION=(\S+)$/m.exec(script)?.[1];
  const path = join(cacheDir(), "bin", `nats-server-${version}`, "nats-server");
  return version && existsSync(path) ? path : undefined;
}

export const natsMissing = `nats-server is not built: run ${setupScript}`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface NatsServer {
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A nats-server on 127.0.0.1 (a free port, kept across restarts), JetStream storing in `storeDir`. */
export async function natsServer(binary: string, storeDir: string): Promise<NatsServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const args = ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", storeDir];
    const started = spawn(binary, args, { stdio: ["ignore", "ignore", "pipe"] });
    child = started;
    await new Promise<void>((resolve, reject) => {
      let log = "";
      started.stderr?.on("data", (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes("Server is ready")) resolve();
      });
      started.once("exit", (code) => reject(new Error(`nats-server exited with ${code}: ${log}`)));
    });
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGKILL");
    await exited;
  };
  return { url: `nats://127.0.0.1:${port}`, start, stop };
}

/** The CloudEvent a NATS message carries (binary mode: `ce-*` headers, the data as the payload). */
export function natsEvent(headers: MsgHdrs | undefined, body: string): CloudEvent<Record<string, unknown>> {
  const asObject = Object.fromEntries(
    (headers?.keys() ?? []).map((key) => [key.toLowerCase(), headers?.get(key)]),
  );
  const event = HTTP.toEvent({ headers: asObject, body }) as CloudEvent<Record<string, unknown>>;
  if (Array.isArray(event)) throw new Error("a batch: one event per message expected");
  event.validate();
  return event;
}
