/**
 * A real CloudEvents HTTP sink on 127.0.0.1 for the event tests and the bench: every request is parsed
 * by the CloudEvents SDK's own HTTP parser (binary mode) and recorded; what the sink answers is set per
 * test (fail the first N requests, answer slowly, or hang until released).
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type CloudEvent, HTTP } from "cloudevents";

export interface Received {
  event: CloudEvent<Record<string, unknown>>;
  /** When the request arrived (epoch ms). */
  at: number;
  /** What the sink answered (0: nothing, it hung). */
  status: number;
  /** When it answered (epoch ms; absent while it has not). */
  answeredAt?: number;
}

export interface SinkBehaviour {
  /** Answer 503 to this many requests first. */
  failFirst?: number;
  /** Answer this status to every request. */
  always?: number;
  /** Answer after this long. */
  delayMs?: number;
  /** Never answer (until behaviour changes and the connection is dropped by the client). */
  hang?: boolean;
}

export interface EventSinkServer {
  url: string;
  received: Received[];
  /** Requests whose body or headers the SDK refused. */
  invalid: string[];
  behaviour: SinkBehaviour;
  close(): Promise<void>;
}

async function body(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startEventSink(behaviour: SinkBehaviour = {}): Promise<EventSinkServer> {
  const sink: Omit<EventSinkServer, "url" | "close"> = { received: [], invalid: [], behaviour };
  let requests = 0;
  const server: Server = createServer(async (request, response) => {
    const at = Date.now();
    const text = await body(request);
    let event: CloudEvent<Record<string, unknown>>;
    try {
      const parsed = HTTP.toEvent({ headers: request.headers, body: text }) as CloudEvent<
        Record<string, unknown>
      >;
      if (Array.isArray(parsed)) throw new Error("a batch: one event per request expected");
      parsed.validate();
      event = parsed;
    } catch (error) {
      sink.invalid.push((error as Error).message);
      response.writeHead(400).end();
      return;
    }
    requests += 1;
    const current = sink.behaviour;
    if (current.hang) {
      sink.received.push({ event, at, status: 0 });
      return; // the client gives up (its timeout) or the server closes
    }
    const status = current.always ?? (requests <= (current.failFirst ?? 0) ? 503 : 202);
    const received: Received = { event, at, status };
    sink.received.push(received);
    if (current.delayMs) await new Promise((resolve) => setTimeout(resolve, current.delayMs));
    received.answeredAt = Date.now();
    response.writeHead(status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(sink, {
    url: `http://127.0.0.1:${port}/events`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** The accepted (2xx) deliveries of `sink`. */
export const acknowledged = (sink: EventSinkServer) =>
  sink.received.filter((r) => r.status >= 200 && r.status < 300);
