/**
 * What lets the in-cluster api-server (`slipway server`) authenticate its callers: it checks their
 * bearer tokens with a TokenReview as its own ServiceAccount (the Component's, see
 * renderServiceAccount), then acts on the API with the caller's own token, so it needs no
 * impersonation. TokenReview is cluster-scoped, so this takes a ClusterRoleBinding to the built-in
 * `system:auth-delegator`. Whoever installs grants it (the release bundle, `slipway install`): the
 * operator then needs no right to create bindings (which it could only do for roles it holds).
 */
import type { BundleObject } from "../bundle/bundle.ts";
import { serviceName } from "./catalog.ts";

export const tokenReviewerRole = "system:auth-delegator";

/** The ServiceAccount the api-server of `platform` runs as (named after its Component). */
export const apiServerServiceAccount = (platform: string) => serviceName(platform, "api-server");

/**
 * Namespace-free like the bundle's other objects: inNamespace() (src/bundle/bundle.ts) names it after
 * the namespace and points its subject there.
 */
export function apiServerBinding(platform: string, version: string): BundleObject {
  const name = apiServerServiceAccount(platform);
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: {
      name,
      labels: {
        "app.kubernetes.io/name": "slipway",
        "app.kubernetes.io/component": "api-server",
        "app.kubernetes.io/part-of": "slipway",
        "app.kubernetes.io/version": version,
      },
    },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: tokenReviewerRole },
    subjects: [{ kind: "ServiceAccount", name }],
  };
}

/** What the release bundle grants: the binding of the default platform ("slipway"); `install --platform` adds its own. */
export const bundleGrants = (version: string) => [apiServerBinding("slipway", version)];
