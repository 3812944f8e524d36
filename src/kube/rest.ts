import http from "node:http";
import https from "node:https";
import { createGunzip } from "node:zlib";
import { abortableSleep } from "../lib/abortable-sleep.ts";
import type { ClusterAccess } from "./kubeconfig.ts";
import { type ClientRateLimit, TokenBucket } from "./rate-limit.ts";

/** A non-2xx answer of the API server, with its Status reason (e.g. "Conflict", "Expired"). */
export class ApiError extends Error {
  override name = "ApiError";
  readonly status: number;
  readonly reason: string | undefined;
  /** The Status's details.causes: which field broke which rule (e.g. a 422 naming an immutable field). */
  readonly causes: readonly StatusCause[];
  /** The API server's own message (its Status body's), without the request line. */
  readonly statusMessage: string | undefined;

  constructor(status: number, method: string, path: string, body: unknown) {
    const statusBody = body as
      | { message?: string; reason?: string; details?: { causes?: StatusCause[] } }
      | undefined;
    super(
      `${method} ${path}: ${status} ${statusBody?.message ?? (typeof body === "string" ? body : "")}`.trim(),
    );
    this.status = status;
    this.reason = statusBody?.reason;
    this.causes = statusBody?.details?.causes ?? [];
    this.statusMessage = statusBody?.message;
  }
}

/** One cause of a refused request, as the API server's Status gives it. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export const isNotFound = (error: unknown) => error instanceof ApiError && error.status === 404;
export const isConflict = (error: unknown) => error instanceof ApiError && error.status === 409;
export const isGone = (error: unknown) => error instanceof ApiError && error.status === 410;

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: Record<string, unknown>;
}

interface Connection {
  base: URL;
  agent: http.Agent;
  headers: Record<string, string>;
  expiresAt: number;
}

/** How long TLS material and credentials read from the kubeconfig are reused (tokens and certs rotate). */
const credentialsTtlMs = 60_000;

/**
 * A small JSON REST client for the API server, on node:http(s) with keep-alive, configured from a
 * ClusterAccess (a KubeConfig: TLS, client certificates, bearer tokens, in-cluster token files). Counts every request
 * through `onRequest(code, method, contentEncoding)`. Asks for gzip, as client-go and the Kubernetes
 * JavaScript client do: the API server compresses an answer over 128 KB (a list page), which costs
 * less than moving it uncompressed through TLS (bench/server on a quiet machine: the first page of
 * 100 Runs through `slipway server` went from 1.72–1.77× a plain list to 1.38–1.40×). With `rateLimit`, each request (not a watch, which is one long
 * request) first takes a token of a bucket, waiting for one when it is empty (client-go's token
 * bucket rate limiter).
 */
export class RestClient {
  readonly #kubeConfig: ClusterAccess;
  readonly #onRequest: (code: string, method: string, contentEncoding?: string) => void;
  readonly #userAgent: string;
  #bucket: TokenBucket | undefined;
  readonly #onRateLimiterWait: (waitedMs: number) => void;
  #connection: Connection | undefined;
  #pending: Promise<Connection> | undefined;

  constructor(
    kubeConfig: ClusterAccess,
    options: {
      onRequest?: (code: string, method: string, contentEncoding?: string) => void;
      userAgent?: string;
      rateLimit?: ClientRateLimit;
      /** Told how long each request waited for the rate limit (0 when a token was there). */
      onRateLimiterWait?: (waitedMs: number) => void;
    } = {},
  ) {
    this.#kubeConfig = kubeConfig;
    this.#onRequest = options.onRequest ?? (() => {});
    this.#userAgent = options.userAgent ?? "slipway";
    this.#bucket = options.rateLimit && new TokenBucket(options.rateLimit.qps, options.rateLimit.burst);
    this.#onRateLimiterWait = options.onRateLimiterWait ?? (() => {});
  }

  /** Sends one request; resolves with the parsed JSON body; rejects with ApiError on a non-2xx status. */
  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    if (this.#bucket) {
      const waitMs = this.#bucket.reserve();
      this.#onRateLimiterWait(waitMs);
      if (waitMs > 0) await abortableSleep(waitMs, options.signal ?? neverAborted);
    }
    const response = await this.#send(method, path, { ...options, gzip: true });
    const chunks: Buffer[] = [];
    const body = response.headers["content-encoding"] === "gzip" ? response.pipe(createGunzip()) : response;
    for await (const chunk of body) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const status = response.statusCode ?? 0;
    let parsed: unknown = text;
    if (text && (response.headers["content-type"] ?? "").includes("json")) parsed = JSON.parse(text);
    if (status < 200 || status > 299) throw new ApiError(status, method, path, parsed);
    return parsed as T;
  }

  /**
   * Opens a watch and calls `onEvent` for each event until the server ends the stream (resolves) or
   * the connection fails or stays silent for `idleTimeoutMs` (rejects). A non-2xx answer rejects
   * with ApiError (410 when too old).
   */
  async watch(
    path: string,
    query: RequestOptions["query"],
    onEvent: (event: WatchEvent) => void,
    signal: AbortSignal,
    idleTimeoutMs = 0,
    /** Called once the API server accepted the watch (a 2xx answer), before any event. */
    onOpen: () => void = () => {},
  ) {
    // the idle timeout is the socket's: a half-open connection that stops delivering is torn down
    const response = await this.#send("GET", path, {
      query: { ...query, watch: true },
      signal,
      timeoutMs: idleTimeoutMs,
    });
    response.setEncoding("utf8");
    await refuseNon2xx(response, "WATCH", path);
    onOpen();
    let buffered = "";
    for await (const chunk of response) {
      buffered += chunk as string;
      let newline = buffered.indexOf("\n");
      while (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line.trim()) onEvent(JSON.parse(line) as WatchEvent);
        newline = buffered.indexOf("\n");
      }
    }
    if (!response.complete && !signal.aborted) throw new Error(`watch ${path}: connection closed mid-stream`);
  }

  /**
   * The text of a GET as it arrives (a followed container log), until the server ends it or `signal`
   * aborts. A non-2xx answer rejects with ApiError before any text. No rate-limit token: like a
   * watch, one long request.
   */
  async stream(
    path: string,
    query: RequestOptions["query"],
    signal: AbortSignal,
  ): Promise<AsyncIterable<string>> {
    const response = await this.#send("GET", path, { query, signal, timeoutMs: 0 });
    response.setEncoding("utf8");
    await refuseNon2xx(response, "GET", path);
    return response as AsyncIterable<string>;
  }

  /**
   * A client with the same credentials, counters and rate limit (the same bucket) and connections of
   * its own: for a long stream, closed with it.
   */
  withOwnConnections(): RestClient {
    const client = new RestClient(this.#kubeConfig, {
      onRequest: this.#onRequest,
      userAgent: this.#userAgent,
      onRateLimiterWait: this.#onRateLimiterWait,
    });
    client.#bucket = this.#bucket;
    return client;
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.#connection?.agent.destroy();
    this.#connection = undefined;
  }

  /** `gzip`: ask for a compressed answer (not for a watch: its events must arrive as they happen). */
  async #send(
    method: string,
    path: string,
    options: RequestOptions & { gzip?: boolean },
  ): Promise<http.IncomingMessage> {
    const connection = await this.#connect();
    const url = new URL(connection.base.pathname.replace(/\/$/, "") + path, connection.base);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const payload =
      options.body === undefined
        ? undefined
        : typeof options.body === "string"
          ? options.body
          : JSON.stringify(options.body);
    const headers: Record<string, string> = {
      ...connection.headers,
      accept: "application/json",
      "user-agent": this.#userAgent,
      ...(options.gzip ? { "accept-encoding": "gzip" } : {}),
    };
    if (payload !== undefined) {
      headers["content-type"] = options.contentType ?? "application/json";
      headers["content-length"] = String(Buffer.byteLength(payload));
    }
    const transport = url.protocol === "https:" ? https : http;
    const countedMethod = method === "WATCH" ? "GET" : method;
    return new Promise((resolve, reject) => {
      const request = transport.request(
        url,
        { method, headers, agent: connection.agent, signal: options.signal },
        (response) => {
          this.#onRequest(
            String(response.statusCode ?? 0),
            countedMethod,
            response.headers["content-encoding"] || undefined,
          );
          resolve(response);
        },
      );
      const timeoutMs = options.timeoutMs ?? 60_000;
      if (timeoutMs > 0) {
        request.setTimeout(timeoutMs, () => request.destroy(new Error(`${method} ${path}: timed out`)));
      }
      request.on("error", (error) => {
        this.#onRequest("<error>", countedMethod);
        reject(error);
      });
      request.end(payload);
    });
  }

  #connect(): Promise<Connection> {
    if (this.#connection && this.#connection.expiresAt > Date.now()) return Promise.resolve(this.#connection);
    this.#pending ??= this.#loadConnection().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  async #loadConnection(): Promise<Connection> {
    const cluster = this.#kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error("the kubeconfig has no current cluster");
    const options: https.RequestOptions = {};
    await this.#kubeConfig.applyToHTTPSOptions(options);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      if (typeof value === "string") headers[name] = value;
    }
    if (options.auth) headers.authorization = `Basic ${Buffer.from(options.auth).toString("base64")}`;
    const base = new URL(cluster.server);
    const previous = this.#connection;
    const sameTls =
      previous &&
      previous.base.href === base.href &&
      sameBuffer((previous.agent as https.Agent).options?.cert, options.cert) &&
      sameBuffer((previous.agent as https.Agent).options?.key, options.key);
    const agent = sameTls
      ? previous.agent
      : base.protocol === "https:"
        ? new https.Agent({
            keepAlive: true,
            ca: options.ca,
            cert: options.cert,
            key: options.key,
            servername: options.servername,
            ...(options.rejectUnauthorized === undefined
              ? {}
              : { rejectUnauthorized: options.rejectUnauthorized }),
          })
        : new http.Agent({ keepAlive: true });
    if (previous && !sameTls) previous.agent.destroy();
    this.#connection = { base, agent, headers, expiresAt: Date.now() + credentialsTtlMs };
    return this.#connection;
  }
}

const neverAborted = new AbortController().signal;

/** Rejects with ApiError (its Status body read) unless `response` (set to utf8) is a 2xx answer. */
async function refuseNon2xx(response: http.IncomingMessage, method: string, path: string): Promise<void> {
  const status = response.statusCode ?? 0;
  if (status >= 200 && status <= 299) return;
  let text = "";
  for await (const chunk of response) text += chunk as string;
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  throw new ApiError(status, method, path, body);
}

function sameBuffer(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  return String(a) === String(b);
}
