/**
 * Sending one CloudEvent to one sink (I/O): HTTP binary mode (`ce-*` headers, JSON body) or a NATS
 * publish with the same headers, confirmed by a flush (the server has it). What went wrong is said
 * without the sink's address, so no credential of it reaches status, logs or Events, and for a
 * tenant's sink as a status code or one fixed reason of ours (failure).
 */
import type { CloudEvent } from "cloudevents";
import { type Dispatcher, fetch } from "undici";
import { checkedAddress, checkedAgent } from "../outbound-lookup.ts";
import { checkedUrl, type OutboundPolicy, statusReason, unreachable } from "../outbound-policy.ts";
import type { AttemptOutcome } from "./delivery.ts";
import { cloudEventsSdk } from "./event.ts";
import type { Sink } from "./sinks.ts";

/** `checked`: a tenant's sink (a Provider's or a Run's), sent to only as the outbound policy allows. */
export type Send = (
  sink: Sink,
  event: CloudEvent<unknown>,
  timeoutMs: number,
  checked?: boolean,
) => Promise<AttemptOutcome>;

/** 4xx but 408 (timeout) and 429 (too many requests): the sink refuses this event; sending it again will not help. */
const refused = (status: number) => status >= 400 && status < 500 && status !== 408 && status !== 429;

/**
 * What an attempt that got no HTTP answer reports: the outbound policy's refusal as it is; for a
 * tenant's sink (`checked`) one fixed reason (a tenant must not learn which of refused, reset,
 * unresolvable or silent its address was: that is a port scan through the operator); for the
 * installer's own sinks the error's code.
 */
function failure(error: unknown, timeoutMs: number, checked: boolean): AttemptOutcome {
  const name = (error as Error)?.name;
  const cause = (error as { cause?: Error })?.cause;
  if (name === "OutboundRefused") return { ok: false, error: (error as Error).message, permanent: true };
  if (cause?.name === "OutboundRefused") return { ok: false, error: cause.message, permanent: true };
  if (checked) return { ok: false, error: unreachable };
  if (name === "TimeoutError" || name === "AbortError")
    return { ok: false, error: `no answer within ${timeoutMs} ms` };
  const code = (cause as { code?: string } | undefined)?.code;
  return { ok: false, error: code ? `connection failed (${code})` : "connection failed" };
}

/** A redirect is not followed: the sink is where the event goes, not where it says to go next. */
export async function sendHttp(
  url: string,
  event: CloudEvent<unknown>,
  timeoutMs: number,
  dispatcher?: Dispatcher,
  checked = false,
): Promise<AttemptOutcome> {
  const message = cloudEventsSdk().HTTP.binary(event);
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: message.headers as Record<string, string>,
      body: message.body as string,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "manual",
      ...(dispatcher ? { dispatcher } : {}),
    });
    await response.body?.cancel();
    if (response.ok) return { ok: true };
    // the standard phrase, not the server's: what it answers never reaches status
    const error = `HTTP ${statusReason(response.status)}`;
    return { ok: false, error, ...(refused(response.status) ? { permanent: true } : {}) };
  } catch (error) {
    return failure(error, timeoutMs, checked);
  }
}

const sinkField = "eventSinks[].url";

/**
 * A sender that keeps one NATS connection per server (opened on first use) and closes them on
 * `close`. A checked sink goes through `outbound`: its URL checked, its connection to a checked
 * address (a NATS server's name resolved and checked first, the connection to that address).
 */
export function transports(outbound?: OutboundPolicy): { send: Send; close(): Promise<void> } {
  const nats = natsPublisher();
  const agent = outbound && checkedAgent(outbound, sinkField);
  return {
    send: async (sink, event, timeoutMs, checked = false) => {
      const policy = checked ? outbound : undefined;
      try {
        if (sink.nats) {
          const server = policy ? await checkedNatsServer(policy, sink.nats.server) : sink.nats.server;
          return await nats.publish(server, sink.nats.subject, event, timeoutMs, checked);
        }
        if (policy) checkedUrl(policy, sinkField, sink.url ?? "");
        return await sendHttp(sink.url ?? "", event, timeoutMs, policy ? agent : undefined, checked);
      } catch (error) {
        return failure(error, timeoutMs, checked);
      }
    },
    close: () => nats.close(),
  };
}

async function checkedNatsServer(outbound: OutboundPolicy, server: string): Promise<string> {
  const url = new URL(server.replace(/^nats:/, "http:"));
  const address = await checkedAddress(outbound, "eventSinks[].nats.server", url.hostname);
  const host = address.includes(":") ? `[${address}]` : address;
  return `nats://${host}:${url.port || "4222"}`;
}

type NatsConnection = Awaited<ReturnType<typeof import("@nats-io/transport-node").connect>>;

function natsPublisher() {
  const connections = new Map<string, Promise<NatsConnection>>();
  const connection = async (server: string, timeoutMs: number) => {
    const known = connections.get(server);
    if (known) {
      const open = await known.catch(() => undefined);
      if (open && !open.isClosed()) return open;
    }
    const { connect } = await import("@nats-io/transport-node");
    const made = connect({ servers: server.replace(/^nats:\/\//, ""), timeout: timeoutMs, reconnect: true });
    connections.set(server, made);
    made.catch(() => connections.delete(server));
    return made;
  };
  return {
    async publish(
      server: string,
      subject: string,
      event: CloudEvent<unknown>,
      timeoutMs: number,
      checked: boolean,
    ): Promise<AttemptOutcome> {
      try {
        const { headers: natsHeaders } = await import("@nats-io/transport-node");
        const nc = await connection(server, timeoutMs);
        const message = cloudEventsSdk().HTTP.binary(event);
        const headers = natsHeaders();
        for (const [name, value] of Object.entries(message.headers))
          if (typeof value === "string") headers.set(name, value);
        nc.publish(subject, String(message.body), { headers });
        await withTimeout(nc.flush(), timeoutMs);
        return { ok: true };
      } catch (error) {
        return failure(error, timeoutMs, checked);
      }
    },
    async close() {
      const all = [...connections.values()];
      connections.clear();
      await Promise.all(all.map(async (made) => (await made.catch(() => undefined))?.close()));
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error("timeout"), { name: "TimeoutError" })), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
