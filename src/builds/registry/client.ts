/**
 * A Docker Registry HTTP API v2 client, as much of it as image builds need: ping and manifest HEAD,
 * with anonymous, basic and Bearer-token auth, errors classified, transient failures retried.
 */

import { exponentialDelay } from "../../lib/backoff.ts";
import { hostAllowed } from "../tenancy.ts";
import { type Challenge, classifyStatus, manifestAccept, parseChallenge, statusClass } from "./challenge.ts";
import type { BasicCredentials } from "./credentials.ts";
import { type RegistryAgents, type RegistryResponse, registryAgents, registryRequest } from "./http.ts";

/** `refused`: the client would not send a request (or credentials) where the registry pointed it. */
export type RegistryErrorKind = "credentials-rejected" | "transient" | "unexpected" | "refused";

export class RegistryError extends Error {
  override name = "RegistryError";
  readonly kind: RegistryErrorKind;
  readonly status: number | undefined;
  constructor(kind: RegistryErrorKind, message: string, status?: number) {
    super(message);
    this.kind = kind;
    this.status = status;
  }
}

export interface RegistryClientOptions {
  /** Host (and port) of the registry. */
  registry: string;
  /** Plain HTTP instead of HTTPS. */
  insecure?: boolean;
  /**
   * Hosts (host[:port]) besides the registry itself a Bearer token realm may be on; the credentials
   * are sent there. A realm elsewhere, or not https (http only for an `insecure` registry), is refused.
   */
  allowedHosts?: string[];
  /** Called for each request; undefined means anonymous. Never logged. */
  credentials?: () => Promise<BasicCredentials | undefined>;
  /** Attempts for a transient failure (5xx, 429, timeout, connection error). Default 4. */
  attempts?: number;
  /** First backoff; doubled after each attempt. Default 250 ms. */
  backoffMs?: number;
  /** Per request. Default 15 s. */
  timeoutMs?: number;
  /** Observes every HTTP request: its status class (2xx, 4xx, 5xx, error) and seconds taken. */
  onRequest?: (statusClass: string, seconds: number) => void;
  /** The connection pools to use (a controller's clients share one); default: the client's own. */
  agents?: RegistryAgents;
}

interface Token {
  value: string;
  expiresAt: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class RegistryClient {
  readonly #options: Required<Omit<RegistryClientOptions, "credentials" | "onRequest" | "agents">> &
    Pick<RegistryClientOptions, "credentials" | "onRequest">;
  readonly #agents: RegistryAgents;
  readonly #base: string;
  /** The scheme the registry asked for last, so later requests authenticate up front (one request per check). */
  #challenge: Challenge | undefined;
  readonly #tokens = new Map<string, Token>();

  constructor(options: RegistryClientOptions) {
    this.#options = {
      insecure: false,
      attempts: 4,
      backoffMs: 250,
      timeoutMs: 15_000,
      allowedHosts: [],
      ...options,
    };
    this.#agents = options.agents ?? registryAgents();
    this.#base = `${this.#options.insecure ? "http" : "https"}://${options.registry}`;
  }

  /** `GET /v2/`: the registry answers and accepts the credentials. */
  async ping(): Promise<void> {
    const response = await this.#request("GET", "/v2/", undefined);
    response?.discard();
  }

  /** The digest of `repository:tag`, or undefined when the registry says it does not exist. */
  async manifestDigest(repository: string, tag: string): Promise<string | undefined> {
    const response = await this.#request(
      "HEAD",
      `/v2/${repository}/manifests/${encodeURIComponent(tag)}`,
      repository,
      {
        accept: manifestAccept,
      },
    );
    if (!response) return undefined;
    const digest = response.header("docker-content-digest");
    if (!digest)
      throw new RegistryError(
        "unexpected",
        `registry ${this.#options.registry}: no Docker-Content-Digest for ${repository}:${tag}`,
      );
    return digest;
  }

  /** Retries transient failures with backoff; undefined for 404. */
  async #request(
    method: string,
    path: string,
    repository: string | undefined,
    headers: Record<string, string> = {},
  ) {
    let last: RegistryError | undefined;
    for (let attempt = 0; attempt < this.#options.attempts; attempt++) {
      if (attempt > 0)
        await sleep(exponentialDelay({ baseMs: this.#options.backoffMs, maxMs: Infinity }, attempt - 1));
      try {
        return await this.#authenticated(method, path, repository, headers);
      } catch (error) {
        if (!(error instanceof RegistryError) || error.kind !== "transient") throw error;
        last = error;
      }
    }
    throw last ?? new RegistryError("transient", `registry ${this.#options.registry}: no attempt made`);
  }

  async #authenticated(
    method: string,
    path: string,
    repository: string | undefined,
    headers: Record<string, string>,
  ) {
    const scope = repository ? `repository:${repository}:pull` : undefined;
    let authorization = await this.#authorization(this.#challenge, scope);
    let response = await this.#send(method, path, { ...headers, ...authorization });
    if (response.status === 401) {
      const challenge = parseChallenge(response.header("www-authenticate"));
      if (challenge && !sameChallenge(challenge, this.#challenge, authorization)) {
        this.#challenge = challenge;
        authorization = await this.#authorization(challenge, scope, true);
        if (authorization) response = await this.#send(method, path, { ...headers, ...authorization });
      }
    }
    switch (classifyStatus(response.status)) {
      case "ok":
        return response;
      case "not-found":
        return undefined;
      case "unauthorized":
        throw new RegistryError(
          "credentials-rejected",
          `registry ${this.#options.registry} answered ${response.status} to ${method} ${path}${authorization ? "" : " (no credentials configured)"}`,
          response.status,
        );
      case "transient":
        throw new RegistryError(
          "transient",
          `registry ${this.#options.registry} answered ${response.status} to ${method} ${path}`,
          response.status,
        );
      default:
        throw new RegistryError(
          "unexpected",
          `registry ${this.#options.registry} answered ${response.status} to ${method} ${path}`,
          response.status,
        );
    }
  }

  async #authorization(challenge: Challenge | undefined, scope: string | undefined, fresh = false) {
    if (!challenge) return undefined;
    const credentials = await this.#options.credentials?.();
    if (challenge.scheme === "basic") {
      if (!credentials) return undefined;
      return { authorization: `Basic ${basic(credentials)}` };
    }
    const tokenScope = scope ?? challenge.scope ?? "";
    const key = `${challenge.realm} ${challenge.service ?? ""} ${tokenScope}`;
    const cached = this.#tokens.get(key);
    if (cached && !fresh && cached.expiresAt > Date.now()) return { authorization: `Bearer ${cached.value}` };
    const url = this.#realm(challenge.realm);
    if (challenge.service) url.searchParams.set("service", challenge.service);
    if (tokenScope) url.searchParams.set("scope", tokenScope);
    const response = await this.#send(
      "GET",
      url,
      credentials ? { authorization: `Basic ${basic(credentials)}` } : {},
    );
    const kind = classifyStatus(response.status);
    if (kind === "unauthorized") {
      throw new RegistryError(
        "credentials-rejected",
        `token service ${url.host} answered ${response.status}`,
        response.status,
      );
    }
    if (kind !== "ok") {
      throw new RegistryError(
        kind === "transient" ? "transient" : "unexpected",
        `token service ${url.host} answered ${response.status}`,
        response.status,
      );
    }
    const body = parseTokenBody(await response.text());
    const value = body.token ?? body.access_token;
    if (!value) throw new RegistryError("unexpected", `token service ${url.host} returned no token`);
    // Renew a little early; registries default to 60 s when they do not say.
    this.#tokens.set(key, {
      value,
      expiresAt: Date.now() + Math.max(10, (body.expires_in ?? 60) - 10) * 1000,
    });
    return { authorization: `Bearer ${value}` };
  }

  /** The token realm, if the credentials may go there: https (http for an insecure registry) on the registry's host or an allowed one. */
  #realm(realm: string): URL {
    const refuse = (why: string) =>
      new RegistryError(
        "refused",
        `registry ${this.#options.registry}: Bearer realm ${realm} refused: ${why}`,
      );
    let url: URL;
    try {
      url = new URL(realm);
    } catch {
      throw refuse("not a URL");
    }
    const schemes = this.#options.insecure ? ["https:", "http:"] : ["https:"];
    if (!schemes.includes(url.protocol))
      throw refuse(
        `scheme ${url.protocol.replace(":", "")} (only ${schemes.map((s) => s.replace(":", "")).join(" or ")})`,
      );
    if (url.host !== this.#options.registry && !hostAllowed(url, this.#options.allowedHosts))
      throw refuse(`host ${url.host} is neither the registry nor an allowed host (tenancy.allowedHosts)`);
    return url;
  }

  async #send(
    method: string,
    pathOrUrl: string | URL,
    headers: Record<string, string>,
  ): Promise<RegistryResponse> {
    const url = typeof pathOrUrl === "string" ? new URL(`${this.#base}${pathOrUrl}`) : pathOrUrl;
    const started = performance.now();
    try {
      const response = await registryRequest(url, method, headers, this.#agents, this.#options.timeoutMs);
      this.#options.onRequest?.(statusClass(response.status), (performance.now() - started) / 1000);
      if (response.status >= 300 && response.status < 400) throw redirectRefusal(response, url);
      if (method === "HEAD" || response.status >= 300) response.discard();
      return response;
    } catch (error) {
      if (error instanceof RegistryError) throw error;
      this.#options.onRequest?.(statusClass(undefined), (performance.now() - started) / 1000);
      throw new RegistryError(
        "transient",
        `${url.host}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}

/** A redirect is not followed (it could point anywhere): the error names where it pointed. */
function redirectRefusal(response: RegistryResponse, url: URL): RegistryError {
  response.discard();
  const location = response.header("location") ?? "";
  const target = URL.canParse(location, url.href) ? new URL(location, url).host : "(no location)";
  return new RegistryError(
    "refused",
    `${url.host} answered ${response.status}, a redirect to ${target}: redirects are not followed`,
    response.status,
  );
}

/** A token service's answer; a body that is not JSON is one without a token. */
function parseTokenBody(text: string): { token?: string; access_token?: string; expires_in?: number } {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

function basic(credentials: BasicCredentials): string {
  return Buffer.from(`${credentials.username}:${credentials.password}`).toString("base64");
}

/** The 401 repeats the challenge we already answered: retrying it would only be rejected again. */
function sameChallenge(next: Challenge, previous: Challenge | undefined, sent: unknown): boolean {
  return (
    sent !== undefined && previous !== undefined && next.scheme === previous.scheme && next.scheme === "basic"
  );
}
