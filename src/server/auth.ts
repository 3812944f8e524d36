import { createHash } from "node:crypto";
import { ApiException, AuthenticationV1Api, KubeConfig } from "@kubernetes/client-node";
import type { FastifyReply, FastifyRequest } from "fastify";
import { HttpError } from "./errors.ts";

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
  }
}

/** The bearer token of an `Authorization` header, or undefined when there is none. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}

/** The server's cluster (address, CA) with the caller's token as the only credential. */
export function userKubeConfig(server: KubeConfig, token: string): KubeConfig {
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

const cacheTtlMs = 10_000;
const cacheLimit = 1_000;

/** An accepted caller: who they are and a client acting as them. */
export interface Caller {
  user: AuthenticatedUser;
  kube: KubeConfig;
}

/**
 * Checks bearer tokens with TokenReview (as the server's own identity). Accepted tokens are
 * remembered for a few seconds by their SHA-256, with their client (which keeps its connections),
 * so a page's burst of requests costs one review and one TLS handshake.
 */
export class TokenAuthenticator {
  readonly #server: KubeConfig;
  readonly #api: AuthenticationV1Api;
  readonly #accepted = new Map<string, Caller & { until: number }>();

  constructor(server: KubeConfig) {
    this.#server = server;
    this.#api = server.makeApiClient(AuthenticationV1Api);
  }

  async authenticate(token: string): Promise<Caller | undefined> {
    const key = createHash("sha256").update(token).digest("hex");
    const cached = this.#accepted.get(key);
    if (cached && cached.until > Date.now()) return cached;
    this.#accepted.delete(key);
    const review = await this.#api
      .createTokenReview({
        body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } },
      })
      .catch((error: unknown) => {
        const code = error instanceof ApiException ? ` (Kubernetes answered ${error.code})` : "";
        throw new HttpError(503, `cannot check the bearer token: the TokenReview failed${code}`);
      });
    const status = review.status;
    if (!status?.authenticated || !status.user?.username) return undefined;
    const user = {
      username: status.user.username,
      uid: status.user.uid ?? "",
      groups: status.user.groups ?? [],
    };
    const caller = { user, kube: userKubeConfig(this.#server, token) };
    if (this.#accepted.size >= cacheLimit) this.#accepted.clear();
    this.#accepted.set(key, { ...caller, until: Date.now() + cacheTtlMs });
    return caller;
  }
}

/** The onRequest hook of the authenticated routes: 401 unless a valid bearer token is presented. */
export function authenticationHook(authenticator: TokenAuthenticator) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    reply.header("www-authenticate", 'Bearer realm="slipway"');
    const token = bearerToken(request.headers.authorization);
    if (!token)
      throw new HttpError(401, "missing bearer token: send 'Authorization: Bearer <Kubernetes token>'");
    const caller = await authenticator.authenticate(token);
    if (!caller) throw new HttpError(401, "the bearer token is not valid (TokenReview refused it)");
    reply.removeHeader("www-authenticate");
    request.user = caller.user;
    request.kube = caller.kube;
  };
}
