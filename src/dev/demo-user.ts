import type { KubeConfig, KubernetesObject } from "@kubernetes/client-node";
import { ImageBuildKind } from "../apis/builds/imagebuild.ts";
import { PipelineKind } from "../apis/pipelines/pipeline.ts";
import { ProviderKind } from "../apis/pipelines/provider.ts";
import { RunKind } from "../apis/pipelines/run.ts";
import { PlatformSpec } from "../apis/platform/platform.ts";
import { group } from "../apis/platform/schemas.ts";
import { withDevClient } from "./dev-client.ts";
import { mintServiceAccountToken } from "./kubeconfig.ts";

const name = "slipway-demo-user";

/** What the demo makes besides the Platform, which the demo user reads (the UI's pages). */
export const demoMadeKinds = [ImageBuildKind, PipelineKind, RunKind, ProviderKind];

/** The core resources the UI reads as the caller for those pages (src/server/builds, pipelines/history.ts). */
export const demoReadCoreResources = ["pods", "pods/log", "events"];

/**
 * The metadata an update could use to have the Platform deleted or held (ownerReferences to a
 * missing owner, finalizers nobody removes), or to change how others select and read it (labels,
 * annotations: the operator reads none of a Platform's today, but the UI, `kubectl` selectors and
 * whatever an installer adds may): frozen like the spec. The rest of metadata is immutable or the
 * API server's own (resourceVersion, generation, managedFields: every update changes them).
 */
const frozenMetadata = ["ownerReferences", "finalizers", "labels", "annotations"];

/** A policy rule: `parent.field` of the update equals the stored one (both absent counts as equal). */
const unchanged = (parent: "spec" | "metadata", field: string) => ({
  expression: `has(object.${parent}.${field}) ? has(oldObject.${parent}.${field}) && object.${parent}.${field} == oldObject.${parent}.${field} : !has(oldObject.${parent}.${field})`,
  message: `${parent}.${field} may not be changed by the demo user: it may change only spec.version`,
  reason: "Forbidden",
});

/** The demo user's identity as the API server names it. */
export const demoUsername = (namespace: string) => `system:serviceaccount:${namespace}:${name}`;

/**
 * The demo user's objects: a ServiceAccount that may read the Platform, its Components and what the
 * demo made (ImageBuilds, Pipelines, Runs, Providers: the UI's pages; pods, their logs and Events, which
 * those pages show) and patch the Platform (no other write, no Secret), and a
 * ValidatingAdmissionPolicy that lets its updates of a Platform change nothing of the spec but
 * `spec.version` (RBAC cannot grant one field). One rule per field of the spec, generated from its
 * schema, so a refusal names the field; and one per metadata field of frozenMetadata.
 */
export function demoUserObjects(namespace: string): KubernetesObject[] {
  const policy = `${name}-${namespace}`;
  const frozen = Object.keys(PlatformSpec.properties).filter((field) => field !== "version");
  return [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace } },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name, namespace },
      rules: [
        { apiGroups: [group], resources: ["platforms"], verbs: ["get", "list", "watch", "patch", "update"] },
        { apiGroups: [group], resources: ["components"], verbs: ["get", "list", "watch"] },
        ...demoMadeKinds.map((kind) => ({
          apiGroups: [kind.group],
          resources: [kind.plural],
          verbs: ["get", "list", "watch"],
        })),
        // what the UI's pages read beside them as the caller: a build's pod and its log (the build log
        // page), the Events of an object (its history); as Kubernetes' own `view` role grants them
        { apiGroups: [""], resources: demoReadCoreResources, verbs: ["get", "list", "watch"] },
      ],
    } as KubernetesObject,
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name, namespace },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
      subjects: [{ kind: "ServiceAccount", name, namespace }],
    } as KubernetesObject,
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: policy },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: {
          resourceRules: [
            { apiGroups: [group], apiVersions: ["*"], operations: ["UPDATE"], resources: ["platforms"] },
          ],
        },
        matchConditions: [
          { name: "demo-user", expression: `request.userInfo.username == '${demoUsername(namespace)}'` },
        ],
        validations: [
          ...frozen.map((field) => unchanged("spec", field)),
          ...frozenMetadata.map((field) => unchanged("metadata", field)),
        ],
      },
    } as KubernetesObject,
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: policy },
      spec: {
        policyName: policy,
        validationActions: ["Deny"],
        matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": namespace } } },
      },
    } as KubernetesObject,
  ];
}

/**
 * Sets up the demo user in `namespace` (demoUserObjects, applied as the caller) and returns a token
 * of it for signing in to the web UI of the demo. The token is printed once to the terminal of the
 * person who ran the demo; it expires after a day.
 */
export async function demoUserToken(config: KubeConfig, namespace: string): Promise<string> {
  await withDevClient(
    config,
    async ({ kube }) => {
      for (const object of demoUserObjects(namespace)) await kube.apply(object, { force: true });
    },
    "slipway-demo",
  );
  return mintServiceAccountToken(config, { namespace, name }, 86_400);
}

/** Removes the demo user's cluster-scoped objects (the namespaced ones go with the namespace). */
export async function removeDemoUserPolicy(config: KubeConfig, namespace: string): Promise<void> {
  await withDevClient(config, async ({ kube, types }) => {
    for (const object of demoUserObjects(namespace).filter((o) => !o.metadata?.namespace)) {
      await types
        .resolve(object.apiVersion, object.kind)
        .then((type) => kube.delete(type, { name: object.metadata?.name ?? "" }))
        .catch(() => {});
    }
  });
}
