/**
 * Authorization of the operations endpoints in a cluster (controller-runtime's secure metrics serving
 * is the model): the caller's bearer token is checked with a TokenReview, then a SubjectAccessReview
 * asks whether that user may `get` the non-resource URL (RBAC `nonResourceURLs: ["/metrics"]`). The
 * operator needs `create` on both (the built-in ClusterRole system:auth-delegator). Verdicts are
 * remembered briefly per token and path, so a scraper costs two reviews per TTL, not per scrape.
 */
import { createHash } from "node:crypto";
import { setNewest } from "../lib/bounded-map.ts";
import { userMay } from "./access-review.ts";
import type { RestClient } from "./rest.ts";

/** 200: may; 401: no or invalid token; 403: a valid token whose user may not. */
export type OpsVerdict = 200 | 401 | 403;
export type OpsAuthorizer = (token: string | undefined, path: string) => Promise<OpsVerdict>;

/** The token of an `Authorization: Bearer …` header (pure). */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
}

/** An OpsAuthorizer asking the API server (as the operator's own identity). */
export function reviewAuthorizer(
  rest: Pick<RestClient, "request">,
  options: { ttlMs?: number; limit?: number } = {},
): OpsAuthorizer {
  const ttlMs = options.ttlMs ?? 10_000;
  const remembered = new Map<string, { verdict: OpsVerdict; until: number }>();
  return async (token, path) => {
    if (!token) return 401;
    const key = createHash("sha256").update(token).update("\u0000").update(path).digest("hex");
    const known = remembered.get(key);
    if (known && known.until > Date.now()) return known.verdict;
    const verdict = await review(rest, token, path);
    setNewest(remembered, key, { verdict, until: Date.now() + ttlMs }, options.limit ?? 1_000);
    return verdict;
  };
}

async function review(rest: Pick<RestClient, "request">, token: string, path: string): Promise<OpsVerdict> {
  const tokenReview = await rest.request<{ status?: TokenReviewStatus }>(
    "POST",
    "/apis/authentication.k8s.io/v1/tokenreviews",
    { body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } } },
  );
  const user = tokenReview.status?.user;
  if (!tokenReview.status?.authenticated || !user?.username) return 401;
  const allowed = await userMay(
    rest,
    { ...user, username: user.username },
    {
      nonResourceAttributes: { path, verb: "get" },
    },
  );
  return allowed ? 200 : 403;
}
