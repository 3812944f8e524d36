import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

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

declare module "fastify" {
  interface FastifyInstance {
    /** Open event streams, ended before the server closes. */
    eventStreams: Set<EventStream>;
  }
}

/** Ends every open stream before the server closes, so `app.close()` does not wait on them. */
export function closeStreamsOnShutdown(app: FastifyInstance): void {
  app.decorate("eventStreams", new Set<EventStream>());
  app.addHook("preClose", async () => {
    for (const stream of [...app.eventStreams]) stream.close();
  });
}

/**
 * Takes over the response as an event stream: headers, a heartbeat comment every `heartbeatMs`
 * (keeps proxies from timing the connection out), and closing when the client goes away.
 */
export function openEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  heartbeatMs = 15_000,
): EventStream {
  reply.hijack();
  const response = reply.raw;
  response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  response.write(": connected\n\n");
  const controller = new AbortController();
  const callbacks: (() => void)[] = [];
  const registry = request.server.eventStreams;
  const heartbeat = setInterval(() => response.write(": heartbeat\n\n"), heartbeatMs);
  const stream: EventStream = {
    send(event, data) {
      if (!controller.signal.aborted) response.write(formatEvent(event, data));
    },
    close() {
      if (controller.signal.aborted) return;
      controller.abort();
      clearInterval(heartbeat);
      registry.delete(stream);
      for (const callback of callbacks) callback();
      response.end();
    },
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
  return stream;
}
