/**
 * JSON over HTTP to one KFP API server (REST v2beta1), with the Provider's bearer token, through the
 * operator's outbound policy (each connection to a checked address; no redirect followed). An error
 * names the endpoint, the call and the HTTP status with a reason of ours: never what the server
 * answered (the endpoint is the tenant's choice, its answer must not come back through status or
 * Events), nor the token.
 */
import { type Agent, fetch } from "undici";
import { checkedAgent } from "../outbound-lookup.ts";
import { type OutboundPolicy, statusReason } from "../outbound-policy.ts";

export class KfpError extends Error {
  override name = "KfpError";
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
}

export const isKfpNotFound = (error: unknown) => error instanceof KfpError && error.status === 404;
export const isKfpConflict = (error: unknown) => error instanceof KfpError && error.status === 409;

export interface KfpRequest {
  query?: Record<string, string | undefined>;
  body?: unknown;
}

const timeoutMs = 30_000;

/** Why the call got no answer: the policy's refusal as it is, else the error's code only. */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { name?: string; code?: string; message?: string } })?.cause;
  if (cause?.name === "OutboundRefused") return cause.message ?? "";
  if ((error as Error)?.name === "TimeoutError") return `no answer within ${timeoutMs / 1000}s`;
  return cause?.code ?? (error as Error)?.name ?? "connection failed";
}

/** The bearer token of the calls; `forget` is told when KFP refused it (401). */
export interface KfpToken {
  get(): Promise<string | undefined>;
  forget(): void;
}

export class KfpHttp {
  readonly endpoint: string;
  readonly #token: KfpToken;
  readonly #agent: Agent;

  constructor(endpoint: string, token: KfpToken, outbound: OutboundPolicy) {
    this.endpoint = endpoint;
    this.#token = token;
    this.#agent = checkedAgent(outbound, "spec.parameters.endpoint");
  }

  async request<T>(method: string, path: string, request: KfpRequest = {}): Promise<T> {
    const token = await this.#token.get();
    const url = new URL(`${this.endpoint}${path}`);
    for (const [name, value] of Object.entries(request.query ?? {}))
      if (value !== undefined) url.searchParams.set(name, value);
    const call = `${method} ${path}`;
    const redact = (text: string) => (token ? text.split(token).join("<token>") : text);
    let response: Awaited<ReturnType<typeof fetch>>;
    try {
      response = await fetch(url, {
        method,
        headers: {
          accept: "application/json",
          ...(request.body === undefined ? {} : { "content-type": "application/json" }),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: "manual",
        dispatcher: this.#agent,
      });
    } catch (error) {
      throw new KfpError(redact(`KFP at ${this.endpoint}: ${call}: ${causeOf(error)}`));
    }
    if (!response.ok) {
      await response.body?.cancel();
      if (response.status === 401) this.#token.forget();
      const redirected = response.status >= 300 && response.status < 400 ? " (a redirect: not followed)" : "";
      throw new KfpError(
        `KFP at ${this.endpoint}: ${call} → ${statusReason(response.status)}${redirected}`,
        response.status,
      );
    }
    const text = await response.text();
    return (text ? JSON.parse(text) : {}) as T;
  }
}
