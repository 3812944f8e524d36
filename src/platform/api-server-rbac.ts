/**
 * What lets the in-cluster api-server (`slipway server`) authenticate its callers: it checks their
 * bearer tokens with a TokenReview as its own ServiceAccount (the Component's, see
 * renderServiceAccount), then acts on the API with the caller's own token, so it needs no
 * impersonation. TokenReview is cluster-scoped, so this takes a ClusterRoleBinding to the built-in
 * `system:auth-delegator`, which whoever installs grants (src/bundle/grants.ts).
 */
import { serviceName } from "./catalog.ts";

export const tokenReviewerRole = "system:auth-delegator";

/** The ServiceAccount the api-server of `platform` runs as (named after its Component). */
export const apiServerServiceAccount = (platform: string) => serviceName(platform, "api-server");
