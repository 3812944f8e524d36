/**
 * The Vertex test server's validator (vertex-validator.py next to this file): one long-lived Python
 * process with the official Vertex AI protos (google-cloud-aiplatform, installed by
 * tools/setup/41-vertex-protos.sh), asked over JSON lines which fields of a request the official
 * message refuses: a request's wire bytes (what the test server receives), or a request in the
 * protobuf object form Slipway hands to the client library (which that library's encoding would
 * take silently: it drops a field it does not know and coerces a value).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { packageRoot } from "../../../src/dev/paths.ts";

export const vertexProtosSetup = "tools/setup/41-vertex-protos.sh";

/** The pinned google-cloud-aiplatform, read from the set-up script (one place says it). */
export const aiplatformVersion = /^AIPLATFORM_VERSION=(\S+)$/m.exec(
  readFileSync(join(packageRoot, vertexProtosSetup), "utf8"),
)?.[1];

function vertexProtosPython(): string {
  const cache = process.env.SLIPWAY_CACHE ?? join(homedir(), ".cache/slipway");
  const venv = join(cache, `vertex-protos-${aiplatformVersion}`);
  if (!existsSync(join(venv, ".installed")))
    throw new Error(`the official Vertex AI protos are not installed in ${venv}: run ${vertexProtosSetup}`);
  return join(venv, "bin/python");
}

export interface VertexValidator {
  /** What the official message `type` (its full name) refuses in `request` (its wire bytes or its object form), each naming the field; none when valid. */
  problems(type: string, request: Buffer | object): Promise<string[]>;
  stop(): Promise<void>;
}

type Pending = { resolve: (problems: string[]) => void; reject: (error: Error) => void };

function ready(child: ChildProcess, lines: AsyncIterator<string>): Promise<void> {
  let errors = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    errors += chunk.toString();
  });
  return lines.next().then(({ value }) => {
    if (!value || !JSON.parse(value).ready) throw new Error(`the Vertex validator did not start: ${errors}`);
  });
}

export async function startVertexValidator(): Promise<VertexValidator> {
  const child = spawn(vertexProtosPython(), [join(import.meta.dirname, "vertex-validator.py")], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  await ready(child, lines);
  const pending = new Map<number, Pending>();
  let exited: Error | undefined;
  let next = 0;
  child.on("exit", (code) => {
    exited = new Error(`the Vertex validator exited (${code})`);
    for (const { reject } of pending.values()) reject(exited);
    pending.clear();
  });
  void (async () => {
    for (let line = await lines.next(); !line.done; line = await lines.next()) {
      const { id, problems } = JSON.parse(line.value) as { id: number; problems: string[] };
      pending.get(id)?.resolve(problems);
      pending.delete(id);
    }
  })();
  return {
    problems: (type, request) =>
      new Promise((resolve, reject) => {
        if (exited) return reject(exited);
        const id = next++;
        pending.set(id, { resolve, reject });
        const given = Buffer.isBuffer(request) ? { body: request.toString("base64") } : { object: request };
        child.stdin?.write(`${JSON.stringify({ id, type, ...given })}\n`);
      }),
    stop: async () => {
      if (child.exitCode !== null) return;
      const gone = new Promise((resolve) => child.once("exit", resolve));
      child.stdin?.end(); // it ends at the end of its input
      await gone;
    },
  };
}
