/**
 * The platform's workflow engine (Argo's workflow-controller, namespaced to the platform's namespace)
 * beyond its pod (pure): its ConfigMap, the Role its ServiceAccount needs there, and the
 * ServiceAccount + Role the workflow pods (Argo's executor) run as. The installer grants the RBAC
 * (src/bundle/grants.ts), as it does the api-server's, so the operator needs no right to bind roles.
 */
import { stringifyYaml as stringify } from "../lib/yaml.ts";
import type { Placement } from "./contracts.ts";
import { serviceName } from "./names.ts";

export const workflowControllerConfigMapName = (platform: string) =>
  `${platform}-workflow-controller-configmap`;

/** The ServiceAccount the platform's Provider runs workflows as. */
export const pipelinesServiceAccount = (platform: string) => `${platform}-pipelines`;

/**
 * https://argo-workflows.readthedocs.io/en/latest/workflow-controller-configmap/: the default
 * artifact repository (the platform's object store, credentials by Secret reference; the bucket made
 * if absent), defaults of every step's main container (MLflow's tracking URI) and, when the engine
 * is placed (nodeSelector, tolerations), the same placement for every workflow's pods (Argo's
 * `workflowDefaults`: a platform put on some nodes runs its pipelines there too).
 */
export function workflowControllerConfigMap(options: {
  bucket: string;
  objectStoreHost: string;
  credentialsSecret: string;
  accessKey: string;
  secretKey: string;
  trackingUri: string;
  placement?: Placement;
}): Record<string, string> {
  const s3 = {
    bucket: options.bucket,
    endpoint: options.objectStoreHost,
    insecure: true,
    region: "us-east-1",
    keyFormat: "argo/{{workflow.name}}/{{pod.name}}",
    createBucketIfNotPresent: { objectLocking: false },
    accessKeySecret: { name: options.credentialsSecret, key: options.accessKey },
    secretKeySecret: { name: options.credentialsSecret, key: options.secretKey },
  };
  const { nodeSelector, tolerations } = options.placement ?? {};
  const placement = { ...(nodeSelector ? { nodeSelector } : {}), ...(tolerations ? { tolerations } : {}) };
  return {
    artifactRepository: stringify({ s3 }),
    mainContainer: stringify({ env: [{ name: "MLFLOW_TRACKING_URI", value: options.trackingUri }] }),
    ...(Object.keys(placement).length ? { workflowDefaults: stringify({ spec: placement }) } : {}),
  };
}

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };

/** Argo's namespace-install Role of the workflow-controller (manifests/namespace-install). */
export const workflowControllerRules: readonly Rule[] = [
  {
    apiGroups: [""],
    resources: ["pods"],
    verbs: ["create", "get", "list", "watch", "update", "patch", "delete"],
  },
  { apiGroups: [""], resources: ["pods/exec"], verbs: ["create"] },
  // create and update: the memoization cache of steps that cache (src/pipelines/argo/memoize.ts), a
  // ConfigMap the controller writes; Argo's docs/memoization.md asks them of its Role
  { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "watch", "list", "create", "update"] },
  {
    apiGroups: [""],
    resources: ["persistentvolumeclaims", "persistentvolumeclaims/finalizers"],
    verbs: ["create", "update", "delete", "get"],
  },
  {
    apiGroups: ["argoproj.io"],
    resources: [
      "workflows",
      "workflows/finalizers",
      "workflowtasksets",
      "workflowtasksets/finalizers",
      "workflowartifactgctasks",
    ],
    verbs: ["get", "list", "watch", "update", "patch", "delete", "create"],
  },
  {
    apiGroups: ["argoproj.io"],
    resources: ["workflowtemplates", "workflowtemplates/finalizers"],
    verbs: ["get", "list", "watch"],
  },
  {
    apiGroups: ["argoproj.io"],
    resources: ["workflowtaskresults"],
    verbs: ["list", "watch", "deletecollection"],
  },
  { apiGroups: [""], resources: ["serviceaccounts"], verbs: ["get", "list"] },
  { apiGroups: [""], resources: ["secrets"], verbs: ["get"] },
  {
    apiGroups: ["argoproj.io"],
    resources: ["cronworkflows", "cronworkflows/finalizers"],
    verbs: ["get", "list", "watch", "update", "patch", "delete"],
  },
  { apiGroups: [""], resources: ["events"], verbs: ["create", "patch"] },
  { apiGroups: ["policy"], resources: ["poddisruptionbudgets"], verbs: ["create", "get", "delete"] },
  { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create", "get", "update"] },
];

/** What Argo's executor needs (https://argo-workflows.readthedocs.io/en/latest/workflow-rbac/, ≥ v3.4). */
export const executorRules: readonly Rule[] = [
  { apiGroups: ["argoproj.io"], resources: ["workflowtaskresults"], verbs: ["create", "patch"] },
];

type RbacObject = { apiVersion: string; kind: string; metadata: { name: string }; [field: string]: unknown };

const role = (name: string, rules: readonly Rule[]): RbacObject => ({
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "Role",
  metadata: { name },
  rules: rules.map((rule) => ({ ...rule })),
});

const roleBinding = (name: string, serviceAccount: string): RbacObject => ({
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "RoleBinding",
  metadata: { name },
  roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
  subjects: [{ kind: "ServiceAccount", name: serviceAccount }],
});

/**
 * The workflow engine's RBAC for `platform`, namespace-free (placed in the platform's namespace): the
 * controller's Role bound to its Component's ServiceAccount, and the pipelines ServiceAccount with the
 * executor's Role. Only that namespace: the controller runs `--namespaced`.
 */
export function workflowEngineRbac(platform: string): RbacObject[] {
  const controller = serviceName(platform, "workflow-engine");
  const pipelines = pipelinesServiceAccount(platform);
  return [
    role(controller, workflowControllerRules),
    roleBinding(controller, controller),
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: pipelines } },
    role(pipelines, executorRules),
    roleBinding(pipelines, pipelines),
  ];
}
