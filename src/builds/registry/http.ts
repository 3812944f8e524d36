/**
 * The registry client's HTTP: node:http(s) on keep-alive agents, so that a manifest HEAD reuses a
 * connection. (fetch closes the connection after every HEAD response — undici does so for servers
 * that send a body to a HEAD — so each existence check cost a new TCP connection.)
 */
import http, { type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import https from "node:https";

/** The connection pools of one controller's registry clients (plain HTTP and TLS). */
export interface RegistryAgents {
  http: http.Agent;
  https: https.Agent;
}

/**
 * How long an idle connection is kept: under the idle timeouts registries and their proxies close
 * connections after (5 s and more), so a pooled connection is rarely found closed by the server.
 */
const idleMs = 4_000;

export function registryAgents(): RegistryAgents {
  return {
    http: new http.Agent({ keepAlive: true, timeout: idleMs }),
    https: new https.Agent({ keepAlive: true, timeout: idleMs }),
  };
}

export interface RegistryResponse {
  status: number;
  header(name: string): string | undefined;
  /** The body as text (read once). */
  text(): Promise<string>;
  /** Drops the body, so the connection goes back to the pool. */
  discard(): void;
}

function wrap(message: IncomingMessage): RegistryResponse {
  const headers: IncomingHttpHeaders = message.headers;
  return {
    status: message.statusCode ?? 0,
    header: (name) => {
      const value = headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(", ") : value;
    },
    text: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of message) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
    discard: () => {
      message.resume();
    },
  };
}

function sendOnce(
  url: URL,
  method: string,
  headers: Record<string, string>,
  agents: RegistryAgents,
  timeoutMs: number,
): Promise<{ response: RegistryResponse } | { error: Error; reused: boolean }> {
  const secure = url.protocol === "https:";
  return new Promise((resolve) => {
    const request = (secure ? https : http).request(url, {
      method,
      headers,
      agent: secure ? agents.https : agents.http,
    });
    // the whole exchange, body included: a server that stops mid-answer does not hold a check forever
    const timer = setTimeout(
      () => request.destroy(new Error(`${method} ${url.pathname}: no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    request.once("response", (message) => {
      message.once("close", () => clearTimeout(timer));
      resolve({ response: wrap(message) });
    });
    request.once("error", (error) => {
      clearTimeout(timer);
      resolve({ error, reused: request.reusedSocket });
    });
    request.end();
  });
}

const closedByServer = (error: Error) =>
  ["ECONNRESET", "EPIPE"].includes((error as NodeJS.ErrnoException).code ?? "");

/**
 * One request (no redirect followed). A pooled connection the server closed while it was idle
 * fails at once (ECONNRESET, EPIPE): the request — a GET or HEAD, which may be repeated — is sent
 * again on a new connection instead of counting as the registry's failure.
 */
export async function registryRequest(
  url: URL,
  method: string,
  headers: Record<string, string>,
  agents: RegistryAgents,
  timeoutMs: number,
): Promise<RegistryResponse> {
  let sent = await sendOnce(url, method, headers, agents, timeoutMs);
  if ("error" in sent && sent.reused && closedByServer(sent.error))
    sent = await sendOnce(url, method, headers, agents, timeoutMs);
  if ("error" in sent) throw sent.error;
  return sent.response;
}
