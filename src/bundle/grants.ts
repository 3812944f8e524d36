/**
 * Cluster RBAC the installer grants other parts of Slipway (the release bundle, `slipway install`),
 * so the operator needs no right to create bindings (which it could only do for roles it holds).
 * Today: the in-cluster api-server's right to review tokens (src/platform/api-server-rbac.ts says
 * why it needs it), a ClusterRoleBinding to the built-in `system:auth-delegator`.
 */
import { apiServerServiceAccount, tokenReviewerRole } from "../platform/api-server-rbac.ts";
import { workflowEngineRbac } from "../platform/workflow-engine.ts";
import { type BundleObject, labels, operatorName } from "./bundle.ts";

/**
 * Namespace-free like the bundle's other objects: inNamespace() (bundle.ts) names it after the
 * namespace and points its subject there.
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

/** The workflow engine's Roles in the platform's namespace (src/platform/workflow-engine.ts says which). */
const workflowEngineGrants = (platform: string, version: string): BundleObject[] =>
  workflowEngineRbac(platform).map((object) => ({
    ...object,
    metadata: { ...object.metadata, labels: labels(version, "workflow-engine") },
  }));

/**
 * The operator's right to check who calls its /metrics and status route (ops-auth.ts: TokenReview and
 * SubjectAccessReview), and a ClusterRole to bind to whoever may read them (a Prometheus, a tool).
 */
export function operatorOpsGrants(version: string): BundleObject[] {
  const reader = `${operatorName}-ops-reader`;
  return [
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: `${operatorName}-ops-reviews`, labels: labels(version, "operator") },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: tokenReviewerRole },
      subjects: [{ kind: "ServiceAccount", name: operatorName }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: reader, labels: labels(version, "operator") },
      rules: [{ nonResourceURLs: ["/metrics", "/namespaces/*"], verbs: ["get"] }],
    },
  ];
}

/** What an install grants for the platform named `platform`: its api-server's binding, its workflow engine's Roles, the operator's reviews. */
export const grantsFor =
  (platform: string) =>
  (version: string): BundleObject[] => [
    apiServerBinding(platform, version),
    ...workflowEngineGrants(platform, version),
    ...operatorOpsGrants(version),
  ];

/** What the release bundle grants: for the default platform name. */
export const bundleGrants = grantsFor("slipway");
