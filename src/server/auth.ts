import { createHash } from "node:crypto";
import { KubeConfig } from "@kubernetes/client-node";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError, RestClient } from "../kube/rest.ts";
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
    /** The client that acts on the Kubernetes API as the caller (with their token), for every call. */
    rest: RestClient;
    /** Whether the caller's token is still accepted (reviewed again once the cached review is older than its TTL). */
    stillAuthenticated: () => Promise<boolean>;
  }
}

/**
 * The server's cluster (address, CA) with the caller's token as the only credential: none of the
 * server's own (its token or client certificate) is carried over.
 */
export function callerAccess(server: KubeConfig, token: string): KubeConfig {
  const cluster = server.getCurrentCluster();
  if (!cluster) throw new Error("the server's kubeconfig has no current cluster");
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [cluster],
    users: [{ name: "caller", token }],
    contexts: [{ name: "caller", cluster: cluster.name, user: "caller" }],
    currentContext: "caller",
  });
  return config;
}

/** The client of the caller of `token`; its connections are kept (keep-alive) and shared by its requests. */
export const callerClient = (server: KubeConfig, token: string): RestClient =>
  new RestClient(callerAccess(server, token), { userAgent: "slipway-server" });

/** Asks whether a token is valid: the user it belongs to, or undefined when it is refused. */
export type TokenReviewer = (token: string) => Promise<AuthenticatedUser | undefined>;

const tokenReviews = "/apis/authentication.k8s.io/v1/tokenreviews";

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[] };
}

/** The TokenReview of the Kubernetes API, as the server's own identity (one client, its connections kept); a failed review is a 503. */
export function kubernetesTokenReviewer(server: KubeConfig): TokenReviewer {
  const rest = new RestClient(server, { userAgent: "slipway-server" });
  return async (token) => {
    const review = await rest
      .request<{ status?: TokenReviewStatus }>("POST", tokenReviews, {
        body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } },
      })
      .catch((error: unknown) => {
        const code = error instanceof ApiError ? ` (Kubernetes answered ${error.status})` : "";
        throw new HttpError(503, `cannot check the bearer token: the TokenReview failed${code}`);
      });
    const status = review.status;
    if (!status?.authenticated || !status.user?.username) return undefined;
    return { username: status.user.username, uid: status.user.uid ?? "", groups: status.user.groups ?? [] };
  };
}

/** An accepted caller: who they are and the client acting as them. */
export interface Caller {
  user: AuthenticatedUser;
  rest: RestClient;
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
  readonly #clients = new Map<string, RestClient>();
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
      this.#clients.get(key)?.close();
      this.#clients.delete(key);
      return undefined;
    }
    const rest = this.#clients.get(key) ?? callerClient(this.#server, token);
    // a forgotten caller's connections are closed (a later request of theirs opens new ones)
    setNewest(this.#clients, key, rest, this.#entries)?.close();
    const caller = { user, rest };
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
