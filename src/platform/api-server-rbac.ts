/**
 * What lets the in-cluster api-server (`slipway server`) authenticate its callers: it checks their
 * bearer tokens with a TokenReview as its own ServiceAccount (the Component's, see
 * renderServiceAccount), then acts on the API with the caller's own token, so it needs no
 * impersonation. TokenReview is cluster-scoped, so this takes a ClusterRoleBinding to the built-in
 * `system:auth-delegator`. Whoever installs grants it (the release bundle, `slipway install`): the
 * operator then needs no right to create bindings (which it could only do for roles it holds).
 */
import { type BundleObject, labels } from "../bundle/bundle.ts";
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
    metadata: { name, labels: labels(version, "api-server") },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: tokenReviewerRole },
    subjects: [{ kind: "ServiceAccount", name }],
  };
}

/** What an install grants for the platform named `platform`: its api-server's binding. */
export const grantsFor =
  (platform: string) =>
  (version: string): BundleObject[] => [apiServerBinding(platform, version)];

/** What the release bundle grants: for the default platform name. */
export const bundleGrants = grantsFor("slipway");
