/**
 * The release bundle: every CRD, the operator's ServiceAccount and RBAC, its Deployment and metrics
 * Service. Pure: `bundleFor(namespace, options)` returns the objects; deploy/slipway.yaml, the Helm
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
import { type DerivedRbac, deriveRbac } from "../operator/rbac.ts";

export const operatorName = "slipway-operator";
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
}

export interface OperatorPodAdditions {
  annotations?: Record<string, string>;
  env?: V1EnvVar[];
  volumeMounts?: V1VolumeMount[];
  volumes?: V1Volume[];
}

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

function rbacObjects(rbac: DerivedRbac, version: string): BundleObject[] {
  const subject = { kind: "ServiceAccount", name: operatorName };
  const roleRef = (kind: string, name: string) => ({ apiGroup: "rbac.authorization.k8s.io", kind, name });
  const namespaced: BundleObject[] = [
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: meta(operatorName, version),
      rules: rbac.namespaced,
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: meta(operatorName, version),
      roleRef: roleRef("Role", operatorName),
      subjects: [subject],
    },
  ];
  if (rbac.cluster.length === 0) return namespaced;
  const name = operatorName;
  return [
    ...namespaced,
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: meta(name, version),
      rules: rbac.cluster,
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: meta(name, version),
      roleRef: roleRef("ClusterRole", name),
      subjects: [subject],
    },
  ];
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
              // Watches only its own namespace: the Role grants nothing elsewhere.
              args: [
                "operator",
                "--namespace=$(POD_NAMESPACE)",
                "--leader-elect",
                `--metrics-port=${operatorHttpPort}`,
                `--health-port=${operatorHttpPort}`,
              ],
              env: [
                fieldEnv("POD_NAMESPACE", "metadata.namespace"),
                fieldEnv("POD_NAME", "metadata.name"),
                { name: "LOG_LEVEL", value: options.logLevel },
                ...(additions.env ?? []),
              ],
              ports: [{ name: "http", containerPort: operatorHttpPort, protocol: "TCP" }],
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

const clusterScoped = new Set(["CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding", "Namespace"]);
const clusterRbac = new Set(["ClusterRole", "ClusterRoleBinding"]);

/**
 * Puts a namespace-free bundle (e.g. parsed from deploy/slipway.yaml) into `namespace`: namespaced
 * objects get it, ServiceAccount subjects point into it, and its cluster-wide RBAC is named after it
 * so installs in two namespaces do not share one ClusterRole(Binding). Role references to a
 * ClusterRole of the bundle follow the rename; built-in ones (e.g. system:auth-delegator) stay.
 */
export function inNamespace(objects: BundleObject[], namespace: string): BundleObject[] {
  const ownClusterRoles = new Set(
    objects.filter((o) => o.kind === "ClusterRole").map((o) => o.metadata?.name ?? ""),
  );
  const placedName = (name: string) => `${name}-${namespace}`;
  return objects.map((object) => {
    const kind = object.kind ?? "";
    const placed: BundleObject = clusterScoped.has(kind)
      ? { ...object }
      : { ...object, metadata: { ...object.metadata, namespace } };
    if (Array.isArray(object.subjects)) {
      placed.subjects = (object.subjects as { kind: string }[]).map((subject) =>
        subject.kind === "ServiceAccount" ? { ...subject, namespace } : subject,
      );
    }
    if (clusterRbac.has(kind) && object.metadata?.name) {
      placed.metadata = { ...object.metadata, name: placedName(object.metadata.name) };
    }
    const roleRef = object.roleRef as { kind: string; name: string } | undefined;
    if (roleRef?.kind === "ClusterRole" && ownClusterRoles.has(roleRef.name)) {
      placed.roleRef = { ...roleRef, name: placedName(roleRef.name) };
    }
    return placed;
  });
}

/**
 * The bundle's objects in install order (CRDs first), in `namespace`. Without a namespace it is
 * the namespace-free template deploy/slipway.yaml holds (see inNamespace).
 */
export function bundleFor(namespace: string | undefined, options: BundleOptions): BundleObject[] {
  const serviceAccount: BundleObject = {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: meta(operatorName, options.version),
  };
  const template = [
    ...options.kinds.map((kind) => crdManifest(kind)),
    serviceAccount,
    ...rbacObjects(deriveRbac(options.controllers), options.version),
    ...(options.grants?.(options.version) ?? []),
    deployment(options),
    service(options),
  ];
  return namespace === undefined ? template : inNamespace(template, namespace);
}
