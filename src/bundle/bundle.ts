/**
 * The release bundle: every CRD, the operator's ServiceAccount and RBAC, its Deployment and metrics
 * Service, its webhooks, and its priority level and FlowSchema. Pure: `bundleFor(namespace, options)` returns the objects; deploy/slipway.yaml, the Helm
 * chart and `slipway install` are all made from it.
 */
import type {
  KubernetesObject,
  V1EnvVar,
  V1ResourceRequirements,
  V1Volume,
  V1VolumeMount,
} from "@kubernetes/client-node";
import { crdManifest } from "../apis/crd.ts";
import type { Kind } from "../apis/kind.ts";
import type { ControllerSpec } from "../kube/types.ts";
import { namespaceArgs, namespacesFromArgs } from "../operator/namespaces.ts";
import {
  type DerivedRbac,
  deriveRbac,
  leaderPermissions,
  mergeRules,
  type PolicyRule,
  runtimePermissions,
} from "../operator/rbac.ts";
import { versionPermissions } from "../operator/storage-migration.ts";
import { webhookPermissions, webhookPort, webhookSecretPermissions } from "../operator/webhooks.ts";
import {
  ambientNamespacesVariable,
  outboundAllowVariable,
  outboundDenyVariable,
} from "../pipelines/outbound-policy.ts";
import { serviceAccountsVariable } from "../pipelines/provider-service-accounts.ts";
import { flowControlObjects, placeFlowSchema } from "./flow-control.ts";
import { placeRunFinalizerPolicyBinding, runFinalizerPolicyObjects } from "./run-finalizer.ts";
import {
  placeCrdConversion,
  placeWebhookConfiguration,
  webhookArgs,
  webhookConfigurations,
  webhookService,
  webhookServiceName,
} from "./webhook.ts";

export const operatorName = "slipway-operator";
/** The namespace deploy/slipway.yaml installs into (like the install manifests users know). */
export const defaultNamespace = "slipway";
/** One port serves /metrics, /healthz and /readyz. */
export const operatorHttpPort = 8080;

export interface BundleOptions {
  kinds: Kind[];
  controllers: ControllerSpec[];
  /** The operator image, `repository:tag`. */
  image: string;
  imagePullPolicy: "Always" | "IfNotPresent" | "Never";
  replicas: number;
  logLevel: "trace" | "debug" | "info" | "warn" | "error";
  resources: V1ResourceRequirements;
  /** The version label of every object. */
  version: string;
  /** Cluster RBAC the installer grants other parts of Slipway (namespace-free; placed by inNamespace). */
  grants?: (version: string) => BundleObject[];
  /** Additions to the operator's pod, after its own (the Helm chart puts its optional parts' markers here). */
  operatorPod?: OperatorPodAdditions;
  /** The namespaces the operator serves: its own (the default), these, or all. */
  serves?: string[] | "all";
  /** CRDs of other projects the release installs (the workflow engine's), after Slipway's own. */
  engineCrds?: BundleObject[];
  /** The ServiceAccounts a Provider may name (`namespace/name`, `*\/name`); default none. */
  providerServiceAccounts?: string[];
  /**
   * The operator's outbound policy (src/pipelines/outbound-policy.ts, docs/security.md): hosts or
   * CIDRs a tenant-named endpoint may reach beyond the built-in refusals (loopback, link-local,
   * unspecified); default none.
   */
  outboundAllow?: string[];
  /** CIDRs refused unless allowed: the cluster's node and pod networks; default none. */
  outboundDeny?: string[];
  /** Namespaces whose vertex Providers and builds overrides' stores may use the operator's ambient cloud credentials (`*`: all); default none. */
  ambientCredentialsNamespaces?: string[];
  /** The Run finalizer policy, bound to the served namespaces (src/bundle/run-finalizer.ts). */
  runFinalizerPolicy?: boolean;
}

export interface OperatorPodAdditions {
  annotations?: Record<string, string>;
  env?: V1EnvVar[];
  volumeMounts?: V1VolumeMount[];
  volumes?: V1Volume[];
}

/** A comma-separated list's variable, only when the list has entries. */
const listEnv = (name: string, entries: readonly string[] | undefined): V1EnvVar[] =>
  entries?.length ? [{ name, value: entries.join(",") }] : [];

export const defaultResources: V1ResourceRequirements = {
  requests: { cpu: "100m", memory: "128Mi" },
  limits: { memory: "512Mi" },
};

export interface BundleObject extends KubernetesObject {
  [field: string]: unknown;
}

/** The labels of every object a release installs; `component` says which part of Slipway it serves. */
export function labels(version: string, component = "operator"): Record<string, string> {
  return {
    "app.kubernetes.io/name": "slipway",
    "app.kubernetes.io/component": component,
    "app.kubernetes.io/part-of": "slipway",
    "app.kubernetes.io/version": version,
  };
}

const selector = { "app.kubernetes.io/name": "slipway", "app.kubernetes.io/component": "operator" };

function meta(name: string, version: string) {
  return { name, labels: labels(version) };
}

const rbacApi = "rbac.authorization.k8s.io/v1";
const subjects = [{ kind: "ServiceAccount", name: operatorName }];
const roleRef = (kind: string, name: string) => ({ apiGroup: "rbac.authorization.k8s.io", kind, name });

/** A Role and its RoleBinding to the operator; without `namespace` they go where the bundle is placed. */
function roleAndBinding(name: string, rules: PolicyRule[], version: string, namespace?: string) {
  const metadata = () => ({ ...meta(name, version), ...(namespace ? { namespace } : {}) });
  return [
    { apiVersion: rbacApi, kind: "Role", metadata: metadata(), rules },
    {
      apiVersion: rbacApi,
      kind: "RoleBinding",
      metadata: metadata(),
      roleRef: roleRef("Role", name),
      subjects,
    },
  ];
}

function clusterRoleAndBinding(rules: PolicyRule[], version: string): BundleObject[] {
  return [
    { apiVersion: rbacApi, kind: "ClusterRole", metadata: meta(operatorName, version), rules },
    {
      apiVersion: rbacApi,
      kind: "ClusterRoleBinding",
      metadata: meta(operatorName, version),
      roleRef: roleRef("ClusterRole", operatorName),
      subjects,
    },
  ];
}

/**
 * The operator's RBAC for the namespaces it serves: its own (a Role there), a list (a Role in each,
 * and one for the leader Lease in its own), or all (one ClusterRole). Cluster-scoped kinds always
 * take a ClusterRole.
 */
function rbacObjects(rbac: DerivedRbac, version: string, serves: BundleOptions["serves"]): BundleObject[] {
  if (serves === "all") return clusterRoleAndBinding([...rbac.namespaced, ...rbac.cluster], version);
  const cluster = rbac.cluster.length > 0 ? clusterRoleAndBinding(rbac.cluster, version) : [];
  if (serves === undefined) return [...roleAndBinding(operatorName, rbac.namespaced, version), ...cluster];
  // its own namespace: the leader Lease and the webhook's serving certificate
  const own = mergeRules([...leaderPermissions, ...webhookSecretPermissions]);
  return [
    ...roleAndBinding(`${operatorName}-leader`, own, version),
    ...serves.flatMap((namespace) => roleAndBinding(operatorName, rbac.namespaced, version, namespace)),
    ...cluster,
  ];
}

const ownNamespaceArg = "--namespaces=$(POD_NAMESPACE)";

/** The operator's namespace flags: its own namespace (from the pod), the list, or all. */
function servedArgs(serves: BundleOptions["serves"]): string[] {
  if (serves === undefined) return [ownNamespaceArg];
  return namespaceArgs(serves === "all" ? undefined : serves);
}

/** What an operator Deployment of a bundle, started with `args`, serves (servedArgs read back). */
export function servesFromArgs(args: string[]): BundleOptions["serves"] {
  if (args.includes(ownNamespaceArg)) return undefined;
  return namespacesFromArgs(args) ?? "all";
}

function fieldEnv(name: string, fieldPath: string) {
  return { name, valueFrom: { fieldRef: { fieldPath } } };
}

function deployment(options: BundleOptions): BundleObject {
  const additions = options.operatorPod ?? {};
  const probe = (path: string, periodSeconds: number) => ({
    httpGet: { path, port: "http" },
    periodSeconds,
    timeoutSeconds: 2,
    failureThreshold: 3,
  });
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: meta(operatorName, options.version),
    spec: {
      replicas: options.replicas,
      selector: { matchLabels: selector },
      template: {
        metadata: {
          ...(additions.annotations ? { annotations: additions.annotations } : {}),
          labels: labels(options.version),
        },
        spec: {
          serviceAccountName: operatorName,
          terminationGracePeriodSeconds: 30,
          securityContext: {
            // the image's distroless "nonroot" user (see Dockerfile)
            runAsNonRoot: true,
            runAsUser: 65532,
            runAsGroup: 65532,
            seccompProfile: { type: "RuntimeDefault" },
          },
          containers: [
            {
              name: "operator",
              image: options.image,
              imagePullPolicy: options.imagePullPolicy,
              // Serves the namespaces its RBAC grants (rbacObjects): its own by default.
              args: [
                "operator",
                ...servedArgs(options.serves),
                "--leader-elect",
                `--metrics-port=${operatorHttpPort}`,
                `--health-port=${operatorHttpPort}`,
                // the pod's port is reachable in the cluster: callers need a token RBAC allows (grants.ts)
                "--ops-bind-address=0.0.0.0",
                "--ops-require-token",
                ...webhookArgs,
              ],
              env: [
                fieldEnv("POD_NAMESPACE", "metadata.namespace"),
                fieldEnv("POD_NAME", "metadata.name"),
                { name: "LOG_LEVEL", value: options.logLevel },
                // only when set: the API server drops an empty value, and kubectl apply would then
                // report the Deployment "configured" on every apply
                ...listEnv(serviceAccountsVariable, options.providerServiceAccounts),
                ...listEnv(outboundAllowVariable, options.outboundAllow),
                ...listEnv(outboundDenyVariable, options.outboundDeny),
                ...listEnv(ambientNamespacesVariable, options.ambientCredentialsNamespaces),
                ...(additions.env ?? []),
              ],
              ports: [
                { name: "http", containerPort: operatorHttpPort, protocol: "TCP" },
                { name: "webhook", containerPort: webhookPort, protocol: "TCP" },
              ],
              livenessProbe: probe("/healthz", 20),
              readinessProbe: probe("/readyz", 10),
              resources: options.resources,
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                capabilities: { drop: ["ALL"] },
              },
              volumeMounts: [{ name: "tmp", mountPath: "/tmp" }, ...(additions.volumeMounts ?? [])],
            },
          ],
          volumes: [{ name: "tmp", emptyDir: {} }, ...(additions.volumes ?? [])],
        },
      },
    },
  };
}

function service(options: BundleOptions): BundleObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: meta(`${operatorName}-metrics`, options.version),
    spec: {
      selector,
      ports: [{ name: "http-metrics", port: operatorHttpPort, targetPort: "http", protocol: "TCP" }],
    },
  };
}

const clusterScoped = new Set([
  "CustomResourceDefinition",
  "ClusterRole",
  "ClusterRoleBinding",
  "Namespace",
  "ValidatingWebhookConfiguration",
  "MutatingAdmissionPolicy",
  "MutatingAdmissionPolicyBinding",
  "PriorityLevelConfiguration",
  "FlowSchema",
]);
/** Cluster-wide objects of one install, named after its namespace. */
const namedAfterNamespace = new Set([
  "ClusterRole",
  "ClusterRoleBinding",
  "ValidatingWebhookConfiguration",
  "MutatingAdmissionPolicy",
  "MutatingAdmissionPolicyBinding",
  "PriorityLevelConfiguration",
  "FlowSchema",
]);

/** The resource of a cluster-wide object named after the namespace, as RBAC names it (`validatingwebhookconfigurations`). */
const pluralOf = (object: BundleObject) => `${object.kind ?? ""}s`.toLowerCase();

/**
 * A rule limited by name to the bundle's own cluster-wide objects (its webhook configurations)
 * follows their rename; names of anything else stay.
 */
function placedRuleNames(
  rule: PolicyRule,
  own: Set<string>,
  placedName: (name: string) => string,
): PolicyRule {
  if (!rule.resourceNames) return rule;
  const names = rule.resourceNames.map((name) =>
    rule.resources.some((resource) => own.has(`${resource}/${name}`)) ? placedName(name) : name,
  );
  return { ...rule, resourceNames: names };
}

/**
 * Puts a bundle into `namespace`: a namespace-free one (the template) or one placed before (e.g.
 * deploy/slipway.yaml, in `slipway`; its Namespace object says where). Objects of the bundle's
 * namespace (or of none) move there, ServiceAccount subjects point there, the Namespace object is
 * renamed, and the bundle's cluster-wide RBAC, webhook configuration, Run finalizer policy and API
 * Priority and Fairness objects (flow-control.ts: the FlowSchema's subject and level follow) are named
 * after it so installs in two namespaces do not share one ClusterRole(Binding); rules limited to those configurations' names follow. Role references to a ClusterRole of the bundle follow the
 * rename; built-in ones (e.g. system:auth-delegator) stay. Roles in other namespaces (those the
 * operator serves) stay where they are.
 */
export function inNamespace(objects: BundleObject[], namespace: string): BundleObject[] {
  const prior = objects.find((o) => o.kind === "Namespace")?.metadata?.name;
  const ownClusterRoles = new Set(
    objects.filter((o) => o.kind === "ClusterRole").map((o) => o.metadata?.name ?? ""),
  );
  const ownNamed = new Set(
    objects
      .filter((o) => namedAfterNamespace.has(o.kind ?? "") && o.kind !== "ClusterRole")
      .map((o) => `${pluralOf(o)}/${o.metadata?.name ?? ""}`),
  );
  const baseName = (name: string) =>
    prior && name.endsWith(`-${prior}`) ? name.slice(0, -prior.length - 1) : name;
  const placedName = (name: string) => `${baseName(name)}-${namespace}`;
  return objects.map((object) => {
    const kind = object.kind ?? "";
    const current = object.metadata?.namespace;
    const stays = clusterScoped.has(kind) || (current !== undefined && current !== prior);
    const placed: BundleObject = stays
      ? { ...object }
      : { ...object, metadata: { ...object.metadata, namespace } };
    if (kind === "Namespace") placed.metadata = { ...object.metadata, name: namespace };
    if (Array.isArray(object.subjects)) {
      placed.subjects = (object.subjects as { kind: string }[]).map((subject) =>
        subject.kind === "ServiceAccount" ? { ...subject, namespace } : subject,
      );
    }
    if (namedAfterNamespace.has(kind) && object.metadata?.name) {
      placed.metadata = { ...object.metadata, name: placedName(object.metadata.name) };
    }
    if (kind === "ValidatingWebhookConfiguration")
      return placeWebhookConfiguration(placed, namespace, operatorName);
    if (kind === "CustomResourceDefinition") return placeCrdConversion(placed, namespace);
    if (kind === "MutatingAdmissionPolicyBinding") {
      const policyName = placedName(String((object.spec as { policyName?: string }).policyName));
      return placeRunFinalizerPolicyBinding(placed, policyName, prior ?? "", namespace);
    }
    if (kind === "FlowSchema") return placeFlowSchema(placed, placedName, namespace);
    if (kind === "ClusterRole" && Array.isArray(object.rules))
      placed.rules = (object.rules as PolicyRule[]).map((rule) =>
        placedRuleNames(rule, ownNamed, placedName),
      );
    const roleRef = object.roleRef as { kind: string; name: string } | undefined;
    if (roleRef?.kind === "ClusterRole" && ownClusterRoles.has(roleRef.name)) {
      placed.roleRef = { ...roleRef, name: placedName(roleRef.name) };
    }
    return placed;
  });
}

/**
 * The bundle's objects in install order (the Namespace, then CRDs), in `namespace`. Without a
 * namespace it is the namespace-free template (see inNamespace), with no Namespace object.
 */
export function bundleFor(namespace: string | undefined, options: BundleOptions): BundleObject[] {
  const serviceAccount: BundleObject = {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: meta(operatorName, options.version),
  };
  const template = [
    // the conversion's Service namespace is the bundle's: inNamespace fills it in
    ...options.kinds.map((kind) =>
      crdManifest(kind, { conversionService: { namespace: "", name: webhookServiceName } }),
    ),
    ...(options.engineCrds ?? []),
    serviceAccount,
    ...rbacObjects(
      deriveRbac(
        options.controllers,
        [...runtimePermissions, ...webhookPermissions, ...versionPermissions(options.kinds)],
        options.providerServiceAccounts,
      ),
      options.version,
      options.serves,
    ),
    ...(options.grants?.(options.version) ?? []),
    deployment(options),
    service(options),
    webhookService(labels(options.version), selector),
    ...webhookConfigurations(labels(options.version), options.serves),
    ...(options.runFinalizerPolicy ? runFinalizerPolicyObjects(labels(options.version), options.serves) : []),
    ...flowControlObjects(labels(options.version), operatorName),
  ];
  if (namespace === undefined) return template;
  const namespaceObject = { apiVersion: "v1", kind: "Namespace", metadata: meta(namespace, options.version) };
  return [namespaceObject, ...inNamespace(template, namespace)];
}
