import { join } from "node:path";
import type { V1EndpointSlice, V1Toleration } from "@kubernetes/client-node";
import { realNodeLabel, realNodeName, realNodePaths } from "./config.ts";
import { clusterDnsIp } from "./network.ts";

/**
 * What puts a pod on the real node: it is tainted (kwok's fake nodes keep everything that needs scale)
 * and labelled, so a pod opts in with this toleration and node selector.
 */
export function realNodePlacement(): { tolerations: V1Toleration[]; nodeSelector: Record<string, string> } {
  return {
    tolerations: [{ key: realNodeLabel, operator: "Exists", effect: "NoSchedule" }],
    nodeSelector: { [realNodeLabel]: "true" },
  };
}

type Manifest = Record<string, unknown>;

const corefile = `.:53 {
    errors
    health :8080
    ready :8181
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    cache 30
}
`;

/** CoreDNS as on any cluster: a Deployment on the real node behind the kube-dns Service at the kubelet's clusterDNS. */
export function coreDnsObjects(image: string): Manifest[] {
  const namespace = "kube-system";
  const labels = { "k8s-app": "kube-dns" };
  const metadata = { name: "coredns", namespace };
  return [
    { apiVersion: "v1", kind: "ServiceAccount", metadata },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "system:coredns" },
      rules: [
        {
          apiGroups: [""],
          resources: ["endpoints", "services", "pods", "namespaces"],
          verbs: ["list", "watch"],
        },
        { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["list", "watch"] },
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: "system:coredns" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "system:coredns" },
      subjects: [{ kind: "ServiceAccount", name: "coredns", namespace }],
    },
    { apiVersion: "v1", kind: "ConfigMap", metadata, data: { Corefile: corefile } },
    coreDnsDeployment(image, metadata, labels),
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "kube-dns", namespace, labels },
      spec: {
        selector: labels,
        clusterIP: clusterDnsIp,
        ports: [
          { name: "dns", port: 53, protocol: "UDP", targetPort: 53 },
          { name: "dns-tcp", port: 53, protocol: "TCP", targetPort: 53 },
        ],
      },
    },
  ];
}

/** The label of the kube-dns Service's EndpointSlices (set by the EndpointSlice controller). */
export const clusterDnsSliceSelector = "kubernetes.io/service-name=kube-dns";

/**
 * Whether pods can resolve names: the kube-dns Service has a ready endpoint, which CoreDNS's
 * readiness probe (`ready` plugin: every plugin, the kubernetes one's informers synced) gives only
 * once it answers from the cluster's state. A pod started before that gets SERVFAIL or no answer.
 */
export function clusterDnsReadiness(slices: readonly V1EndpointSlice[]): { ok: boolean; detail: string } {
  const endpoints = slices.flatMap((slice) => slice.endpoints ?? []);
  const ready = endpoints.filter((endpoint) => endpoint.conditions?.ready === true).length;
  return { ok: ready > 0, detail: `kube-dns: ${ready}/${endpoints.length} endpoints ready` };
}

function coreDnsDeployment(image: string, metadata: Manifest, labels: Record<string, string>): Manifest {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { ...metadata, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          ...realNodePlacement(),
          serviceAccountName: "coredns",
          dnsPolicy: "Default",
          containers: [
            {
              name: "coredns",
              image,
              imagePullPolicy: "IfNotPresent",
              args: ["-conf", "/etc/coredns/Corefile"],
              ports: [
                { name: "dns", containerPort: 53, protocol: "UDP" },
                { name: "dns-tcp", containerPort: 53, protocol: "TCP" },
              ],
              readinessProbe: { httpGet: { path: "/ready", port: 8181 }, periodSeconds: 2 },
              livenessProbe: { httpGet: { path: "/health", port: 8080 }, periodSeconds: 10 },
              volumeMounts: [{ name: "config", mountPath: "/etc/coredns", readOnly: true }],
            },
          ],
          volumes: [{ name: "config", configMap: { name: "coredns" } }],
        },
      },
    },
  };
}

/**
 * The real node's storage: hostPath PersistentVolumes under the dev directory, made by `dev up`, bound
 * through a no-provisioner StorageClass (WaitForFirstConsumer, so a claim binds where its pod runs).
 * Chosen over a provisioner of our own: no extra process, and `dev down` removes the data with the
 * directory. `up` frees Released ones again (src/dev/real-node/volumes.ts).
 */
export const realNodeStorageClass = "real-node-local";
export const realNodeVolumeCount = 6;
export const realNodeVolumeName = (index: number) => `real-node-pv-${index}`;

export function realNodeStorageObjects(dir: string): Manifest[] {
  const volumes = realNodePaths(dir).volumes;
  return [
    {
      apiVersion: "storage.k8s.io/v1",
      kind: "StorageClass",
      metadata: { name: realNodeStorageClass },
      provisioner: "kubernetes.io/no-provisioner",
      reclaimPolicy: "Retain",
      volumeBindingMode: "WaitForFirstConsumer",
    },
    ...Array.from({ length: realNodeVolumeCount }, (_, index) => ({
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name: realNodeVolumeName(index), labels: { [realNodeLabel]: "true" } },
      spec: {
        capacity: { storage: "1Gi" },
        accessModes: ["ReadWriteOnce"],
        persistentVolumeReclaimPolicy: "Retain",
        storageClassName: realNodeStorageClass,
        hostPath: { path: join(volumes, `pv-${index}`), type: "Directory" },
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [
              {
                matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: [realNodeName] }],
              },
            ],
          },
        },
      },
    })),
  ];
}
