/**
 * The release bundle: every CRD, the operator's ServiceAccount and RBAC, its Deployment and metrics
 * Service. Pure: `bundleFor(namespace, options)` returns the objects; deploy/slipway.yaml, the Helm
 * chart and `slipway install` are all made from it.
 */
import type { KubernetesObject, V1ResourceRequirements } from "@kubernetes/client-node";
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
}

export const defaultResources: V1ResourceRequirements = {
  requests: { cpu: "100m", memory: "128Mi" },
  limits: { memory: "512Mi" },
};

export interface BundleObject extends KubernetesObject {
  [field: string]: unknown;
}

function labels(version: string): Record<string, string> {
  return {
    "app.kubernetes.io/name": "slipway",
    "app.kubernetes.io/component": "operator",
    "app.kubernetes.io/part-of": "slipway",
    "app.kubernetes.io/version": version,
  };
}

const selector = { "app.kubernetes.io/name": "slipway", "app.kubernetes.io/component": "operator" };

/** Cluster-scoped objects are shared by every install, so they carry the namespace in their name. */
export function clusterName(namespace: string | undefined): string {
  return namespace ? `${operatorName}-${namespace}` : operatorName;
}

function meta(name: string, namespace: string | undefined, version: string) {
  return { name, ...(namespace ? { namespace } : {}), labels: labels(version) };
}

function rbacObjects(rbac: DerivedRbac, namespace: string | undefined, version: string): BundleObject[] {
  const subject = { kind: "ServiceAccount", name: operatorName, ...(namespace ? { namespace } : {}) };
  const roleRef = (kind: string, name: string) => ({ apiGroup: "rbac.authorization.k8s.io", kind, name });
  const namespaced: BundleObject[] = [
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: meta(operatorName, namespace, version),
      rules: rbac.namespaced,
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: meta(operatorName, namespace, version),
      roleRef: roleRef("Role", operatorName),
      subjects: [subject],
    },
  ];
  if (rbac.cluster.length === 0) return namespaced;
  const name = clusterName(namespace);
  return [
    ...namespaced,
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: meta(name, undefined, version),
      rules: rbac.cluster,
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: meta(name, undefined, version),
      roleRef: roleRef("ClusterRole", name),
      subjects: [subject],
    },
  ];
}

function fieldEnv(name: string, fieldPath: string) {
  return { name, valueFrom: { fieldRef: { fieldPath } } };
}

function deployment(options: BundleOptions, namespace: string | undefined): BundleObject {
  const probe = (path: string, periodSeconds: number) => ({
    httpGet: { path, port: "http" },
    periodSeconds,
    timeoutSeconds: 2,
    failureThreshold: 3,
  });
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: meta(operatorName, namespace, options.version),
    spec: {
      replicas: options.replicas,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: labels(options.version) },
        spec: {
          serviceAccountName: operatorName,
          terminationGracePeriodSeconds: 30,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: 1000,
            runAsGroup: 1000,
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
              volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
            },
          ],
          volumes: [{ name: "tmp", emptyDir: {} }],
        },
      },
    },
  };
}

function service(options: BundleOptions, namespace: string | undefined): BundleObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: meta(`${operatorName}-metrics`, namespace, options.version),
    spec: {
      selector,
      ports: [{ name: "http-metrics", port: operatorHttpPort, targetPort: "http", protocol: "TCP" }],
    },
  };
}

/**
 * The bundle's objects in install order (CRDs first). `namespace` undefined leaves namespaced
 * objects without one (for `kubectl apply -n`); cluster-scoped objects then carry no namespace suffix.
 */
export function bundleFor(namespace: string | undefined, options: BundleOptions): BundleObject[] {
  const serviceAccount: BundleObject = {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: meta(operatorName, namespace, options.version),
  };
  return [
    ...options.kinds.map((kind) => crdManifest(kind)),
    serviceAccount,
    ...rbacObjects(deriveRbac(options.controllers), namespace, options.version),
    deployment(options, namespace),
    service(options, namespace),
  ];
}
