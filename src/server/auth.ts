import { createHash } from "node:crypto";
import { ApiException, AuthenticationV1Api, KubeConfig, type RequestContext } from "@kubernetes/client-node";
import type { FastifyReply, FastifyRequest } from "fastify";
import { RestClient } from "../kube/rest.ts";
import { setNewest, TtlCache } from "../lib/bounded-map.ts";
import { HttpError, TooManyRequests } from "./errors.ts";
import type { FailureLimiter } from "./limits/failure-limiter.ts";

export { bearerToken } from "../kube/ops-auth.ts";

import { bearerToken } from "../kube/ops-auth.ts";

/** Who made a request, as the Kubernetes TokenReview says. */
export interface AuthenticatedUser {
  username: string;
  uid: string;
  groups: string[];
}

declare module "fastify" {
  interface FastifyRequest {
    /** The caller, from the TokenReview of their bearer token. */
    user: AuthenticatedUser;
    /** A client configuration that acts on the Kubernetes API as the caller (with their token). */
    kube: KubeConfig;
    /** The lean JSON client of the same caller, for the hot reads (one GET, one list page). */
    rest: RestClient;
    /** Whether the caller's token is still accepted (reviewed again once the cached review is older than its TTL). */
    stillAuthenticated: () => Promise<boolean>;
  }
}

/**
 * A KubeConfig whose requests share one connection pool. The client library gives every request a
 * new undici Agent, so each REST call opened a new TLS connection to the API server (and left it
 * open until idle). The pool carries no credential: every request still sends the caller's token.
 */
class PooledKubeConfig extends KubeConfig {
  #dispatcher: ReturnType<RequestContext["getDispatcher"]>;

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    this.#dispatcher ??= context.getDispatcher();
    if (this.#dispatcher) context.setDispatcher(this.#dispatcher);
  }
}

/** The same configuration (cluster, user, context) whose requests share one connection pool. */
export function pooledKubeConfig(config: KubeConfig): KubeConfig {
  const pooled = new PooledKubeConfig();
  pooled.loadFromOptions({
    clusters: config.clusters,
    users: config.users,
    contexts: config.contexts,
    currentContext: config.currentContext,
  });
  return pooled;
}

/** The server's cluster (address, CA) with the caller's token as the only credential; its requests share connections. */
export function userKubeConfig(server: KubeConfig, token: string): KubeConfig {
  const cluster = server.getCurrentCluster();
  if (!cluster) throw new Error("the server's kubeconfig has no current cluster");
  const config = new PooledKubeConfig();
  config.loadFromOptions({
    clusters: [cluster],
    users: [{ name: "caller", token }],
    contexts: [{ name: "caller", cluster: cluster.name, user: "caller" }],
    currentContext: "caller",
  });
  return config;
}

/** Asks whether a token is valid: the user it belongs to, or undefined when it is refused. */
export type TokenReviewer = (token: string) => Promise<AuthenticatedUser | undefined>;

/**
 * The TokenReview of the Kubernetes API, as the server's own identity (its reviews share one
 * connection pool; the client library would open a TLS connection per review); a failed review is a 503.
 */
export function kubernetesTokenReviewer(server: KubeConfig): TokenReviewer {
  const api = pooledKubeConfig(server).makeApiClient(AuthenticationV1Api);
  return async (token) => {
    const review = await api
      .createTokenReview({
        body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } },
      })
      .catch((error: unknown) => {
        const code = error instanceof ApiException ? ` (Kubernetes answered ${error.code})` : "";
        throw new HttpError(503, `cannot check the bearer token: the TokenReview failed${code}`);
      });
    const status = review.status;
    if (!status?.authenticated || !status.user?.username) return undefined;
    return { username: status.user.username, uid: status.user.uid ?? "", groups: status.user.groups ?? [] };
  };
}

/** The clients acting as one caller: the Kubernetes library's and the lean JSON one (src/kube/rest.ts). */
export interface CallerClients {
  kube: KubeConfig;
  rest: RestClient;
}

/** An accepted caller: who they are and clients acting as them. */
export interface Caller extends CallerClients {
  user: AuthenticatedUser;
}

/** Both clients of the caller of `token`; their connections are kept (keep-alive) and shared by its requests. */
export function callerClients(server: KubeConfig, token: string): CallerClients {
  const kube = userKubeConfig(server, token);
  return { kube, rest: new RestClient(kube, { userAgent: "slipway-server" }) };
}

export interface AuthenticatorOptions {
  /** How a token is checked (default: the Kubernetes TokenReview as `server`). */
  review?: TokenReviewer;
  /** How long a review (accepted or refused) is remembered. */
  ttlMs: number;
  /** Accepted tokens remembered; as many refused ones, apart (a flood of junk never evicts a user). */
  entries: number;
  now?: () => number;
}

/**
 * Checks bearer tokens with TokenReview. Reviews are remembered for a few seconds by the token's
 * SHA-256 — accepted ones with their client (which keeps its connections), refused ones apart — and
 * concurrent requests with the same unknown token share one review, so a page's burst of requests,
 * or a burst of one junk token, costs one review.
 */
export class TokenAuthenticator {
  readonly #server: KubeConfig;
  readonly #review: TokenReviewer;
  readonly #accepted: TtlCache<Caller>;
  readonly #refused: TtlCache<true>;
  readonly #pending = new Map<string, Promise<Caller | undefined>>();
  /** Each accepted token's client, kept across its reviews so its connections are reused (least recently reviewed forgotten first). */
  readonly #clients = new Map<string, CallerClients>();
  readonly #entries: number;
  readonly #now: () => number;

  constructor(server: KubeConfig, options: AuthenticatorOptions) {
    this.#server = server;
    this.#review = options.review ?? kubernetesTokenReviewer(server);
    this.#accepted = new TtlCache({ ttlMs: options.ttlMs, limit: options.entries });
    this.#refused = new TtlCache({ ttlMs: options.ttlMs, limit: options.entries });
    this.#entries = options.entries;
    this.#now = options.now ?? Date.now;
  }

  /** The caller of a token accepted within the TTL, without reviewing it. */
  known(token: string): Caller | undefined {
    return this.#accepted.get(tokenKey(token), this.#now());
  }

  /** The caller of `token`, or undefined when Kubernetes refuses it (now or within the TTL). */
  async authenticate(token: string): Promise<Caller | undefined> {
    const key = tokenKey(token);
    const now = this.#now();
    const cached = this.#accepted.get(key, now);
    if (cached) return cached;
    if (this.#refused.get(key, now)) return undefined;
    const pending = this.#pending.get(key);
    if (pending) return pending;
    const reviewing = this.#reviewNow(key, token).finally(() => this.#pending.delete(key));
    this.#pending.set(key, reviewing);
    return reviewing;
  }

  async #reviewNow(key: string, token: string): Promise<Caller | undefined> {
    const user = await this.#review(token);
    if (!user) {
      this.#refused.set(key, true, this.#now());
      this.#clients.get(key)?.rest.close();
      this.#clients.delete(key);
      return undefined;
    }
    const clients = this.#clients.get(key) ?? callerClients(this.#server, token);
    // a forgotten caller's connections are closed (a later request of theirs opens new ones)
    setNewest(this.#clients, key, clients, this.#entries)?.rest.close();
    const caller = { user, ...clients };
    this.#accepted.set(key, caller, this.#now());
    return caller;
  }
}

const tokenKey = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * The onRequest hook of the authenticated routes: 401 unless a valid bearer token is presented.
 * A token not accepted within the TTL is reviewed only while the client's allowance of
 * authentication failures lasts (429 with Retry-After once it is spent).
 */
export function authenticationHook(authenticator: TokenAuthenticator, failures: FailureLimiter) {
  // The challenge is set on a 401 only: set on every request and removed once accepted, it cost two
  // header operations per answered request (bench/server's profile).
  const unauthorized = (reply: FastifyReply, message: string) => {
    reply.header("www-authenticate", 'Bearer realm="slipway"');
    return new HttpError(401, message);
  };
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const token = bearerToken(request.headers.authorization);
    if (!token)
      throw unauthorized(reply, "missing bearer token: send 'Authorization: Bearer <Kubernetes token>'");
    const caller =
      authenticator.known(token) ?? (await limitedReview(authenticator, failures, request.ip, token));
    if (!caller) throw unauthorized(reply, "the bearer token is not valid (TokenReview refused it)");
    request.user = caller.user;
    request.kube = caller.kube;
    request.rest = caller.rest;
    request.stillAuthenticated = async () => (await authenticator.authenticate(token)) !== undefined;
  };
}

/** A review that counts against `client`'s failure allowance unless the token is accepted. */
async function limitedReview(
  authenticator: TokenAuthenticator,
  failures: FailureLimiter,
  client: string,
  token: string,
): Promise<Caller | undefined> {
  const waitSeconds = failures.take(client, Date.now());
  if (waitSeconds !== undefined)
    throw new TooManyRequests(
      `too many authentication failures from ${client}: try again in ${waitSeconds} s`,
      waitSeconds,
    );
  const caller = await authenticator.authenticate(token).catch((error: unknown) => {
    failures.refund(client, Date.now()); // the review failed, not the client
    throw error;
  });
  if (caller) failures.refund(client, Date.now());
  return caller;
}
