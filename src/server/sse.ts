import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { StreamSlots } from "./limits/stream-slots.ts";

/** One open `text/event-stream` response. */
export interface EventStream {
  send(event: string, data: unknown): void;
  /** Ends the response; `onClose` callbacks run once, whoever closes first (client, server or route). */
  close(): void;
  onClose(callback: () => void): void;
  readonly closed: boolean;
  /** Aborted when the stream closes: pass it to watches and timers. */
  readonly signal: AbortSignal;
}

/** One server-sent event, framed; multi-line data is split into `data:` lines as the format requires. */
export function formatEvent(event: string, data: unknown): string {
  const lines = JSON.stringify(data).split("\n");
  return `event: ${event}\n${lines.map((line) => `data: ${line}`).join("\n")}\n\n`;
}

/** What every stream of the server is held to (see limits/config.ts). */
export interface StreamLimits {
  slots: StreamSlots;
  /** Bytes a stream may have unsent (its reader not reading) for longer than `drainMs` before it is dropped. */
  bufferBytes: number;
  drainMs: number;
  /** How often an open stream's token is checked again. */
  recheckMs: number;
}

declare module "fastify" {
  interface FastifyInstance {
    /** Open event streams, ended before the server closes. */
    eventStreams: Set<EventStream>;
    streamLimits: StreamLimits;
  }
}

/** The streams' registry and limits; every open stream is ended before the server closes, so `app.close()` does not wait on them. */
export function setUpEventStreams(
  app: FastifyInstance,
  limits: { perUser: number; total: number; bufferBytes: number; drainMs: number; recheckMs: number },
): void {
  app.decorate("eventStreams", new Set<EventStream>());
  app.decorate("streamLimits", {
    slots: new StreamSlots({ perUser: limits.perUser, total: limits.total }),
    bufferBytes: limits.bufferBytes,
    drainMs: limits.drainMs,
    recheckMs: limits.recheckMs,
  });
  app.addHook("preClose", async () => {
    for (const stream of [...app.eventStreams]) stream.close();
  });
}

/**
 * Takes over the response as an event stream: headers, a heartbeat comment every `heartbeatMs`
 * (keeps proxies from timing the connection out), and closing when the client goes away, when it
 * reads too slowly (more than `bufferBytes` still unsent `drainMs` after a write: dropped, not
 * buffered without bound) or when the caller's token is no longer accepted (checked every `recheckMs`).
 */
export function openEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  heartbeatMs = 15_000,
): EventStream {
  reply.hijack();
  const response = reply.raw;
  const limits = request.server.streamLimits;
  response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  const controller = new AbortController();
  const callbacks: (() => void)[] = [];
  const registry = request.server.eventStreams;
  const finish = (end: boolean) => {
    if (controller.signal.aborted) return;
    controller.abort();
    clearInterval(heartbeat);
    clearInterval(recheck);
    clearTimeout(congestion);
    registry.delete(stream);
    for (const callback of callbacks) callback();
    if (end) response.end();
    else response.destroy();
  };
  // A burst (a snapshot, a large object) may exceed the bound while a reader that keeps up drains it.
  let congestion: NodeJS.Timeout | undefined;
  const stillCongested = () => {
    congestion = undefined;
    if (response.writableLength <= limits.bufferBytes) return;
    request.log.warn({ unsentBytes: response.writableLength }, "event stream reader too slow; dropping it");
    finish(false);
  };
  const write = (text: string) => {
    if (controller.signal.aborted) return;
    response.write(text);
    if (response.writableLength > limits.bufferBytes && !congestion)
      congestion = setTimeout(stillCongested, limits.drainMs);
  };
  const heartbeat = setInterval(() => write(": heartbeat\n\n"), heartbeatMs);
  const recheck = setInterval(() => {
    void request.stillAuthenticated().then(
      (valid) => valid || finish(true),
      () => {}, // a review that failed says nothing about the token: the next check decides
    );
  }, limits.recheckMs);
  const stream: EventStream = {
    send: (event, data) => write(formatEvent(event, data)),
    close: () => finish(true),
    onClose(callback) {
      callbacks.push(callback);
    },
    get closed() {
      return controller.signal.aborted;
    },
    signal: controller.signal,
  };
  registry.add(stream);
  response.on("close", () => stream.close());
  write(": connected\n\n");
  return stream;
}

/** What a stream's source gets: where to send events, how to end the stream, and when to stop. */
export interface StreamFeed {
  send(event: string, data: unknown): void;
  close(): void;
  /** Aborted when the stream closes (or could not open). */
  signal: AbortSignal;
}

/**
 * An event stream fed by `start` (a follower of the Kubernetes API, as the caller). A slot is
 * taken first (429 beyond the per-user or total cap, before anything is asked upstream); `start`
 * resolves once its first answer is in, before the response is taken over, so its refusal (403,
 * 404) is a JSON answer; what it sends meanwhile waits for the stream.
 */
export async function followedEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  heartbeatMs: number | undefined,
  start: (feed: StreamFeed) => Promise<void>,
): Promise<void> {
  const release = request.server.streamLimits.slots.take(request.user.username);
  const controller = new AbortController();
  let stream: EventStream | undefined;
  let closeOnOpen = false;
  const waiting: [string, unknown][] = [];
  const feed: StreamFeed = {
    send: (event, data) => (stream ? stream.send(event, data) : waiting.push([event, data])),
    close: () => {
      if (stream) stream.close();
      else closeOnOpen = true;
    },
    signal: controller.signal,
  };
  try {
    await start(feed);
  } catch (error) {
    controller.abort();
    release();
    throw error;
  }
  stream = openEventStream(request, reply, heartbeatMs);
  stream.onClose(() => {
    controller.abort();
    release();
  });
  for (const [event, data] of waiting.splice(0)) stream.send(event, data);
  if (closeOnOpen) stream.close();
}
