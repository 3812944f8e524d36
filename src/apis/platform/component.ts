import { Type } from "@sinclair/typebox";
import { Conditions } from "../condition.ts";
import { defineKind, type Resource } from "../kind.ts";
import { group, IngressTls, ingressHost, phasedColumns, podSettings, version } from "./schemas.ts";

export const componentPhases = [
  "Pending",
  "Deploying",
  "Ready",
  "Updating",
  "Stopping",
  "Stopped",
  "Failed",
] as const;
export type ComponentPhase = (typeof componentPhases)[number];

const Volume = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 63, description: "the PersistentVolumeClaim's name suffix" }),
  mountPath: Type.String({ minLength: 1, maxLength: 1024 }),
  size: Type.String({ maxLength: 64 }),
  storageClassName: Type.Optional(Type.String({ maxLength: 253 })),
  accessMode: Type.Union([Type.Literal("ReadWriteOnce"), Type.Literal("ReadWriteMany")]),
});

/**
 * An env variable: a literal value, a key of a Secret the Platform generated (never the value itself)
 * or a field of the pod.
 */
const ComponentEnvVar = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 256 }),
  value: Type.Optional(Type.String({ maxLength: 4096 })),
  valueFrom: Type.Optional(
    Type.Object({
      secretKeyRef: Type.Optional(
        Type.Object({
          name: Type.String({ minLength: 1, maxLength: 253 }),
          key: Type.String({ minLength: 1, maxLength: 253 }),
        }),
      ),
      fieldRef: Type.Optional(Type.Object({ fieldPath: Type.String({ minLength: 1, maxLength: 256 }) })),
    }),
  ),
});

const SecretMount = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 63, description: "the pod volume's name" }),
  secretName: Type.String({ minLength: 1, maxLength: 253 }),
  key: Type.String({
    minLength: 1,
    maxLength: 253,
    description: "the one key mounted (a file of that name)",
  }),
  mountPath: Type.String({ minLength: 1, maxLength: 1024 }),
});

const InitContainer = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 63 }),
  command: Type.Array(Type.String({ maxLength: 4096 }), { minItems: 1, maxItems: 64 }),
  env: Type.Optional(Type.Array(ComponentEnvVar, { maxItems: 64 })),
});

const Port = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 15 }),
  port: Type.Integer({ minimum: 1, maximum: 65535 }),
});

export const ComponentSpec = Type.Object({
  component: Type.String({ description: "The catalog name of the service, e.g. postgres" }),
  version: Type.String({ description: "The Slipway release this rendering belongs to" }),
  workload: Type.Union([Type.Literal("Deployment"), Type.Literal("StatefulSet")]),
  image: Type.String({ minLength: 1, maxLength: 512 }),
  command: Type.Optional(Type.Array(Type.String({ maxLength: 1024 }), { maxItems: 16 })),
  args: Type.Optional(Type.Array(Type.String({ maxLength: 1024 }), { maxItems: 64 })),
  replicas: Type.Integer({ minimum: 0, maximum: 100 }),
  stopped: Type.Boolean({ default: false }),
  restartedAt: Type.Optional(Type.String({ maxLength: 64 })),
  env: Type.Array(ComponentEnvVar, { default: [], maxItems: 128 }),
  ports: Type.Array(Port, { default: [], maxItems: 16 }),
  readinessPath: Type.Optional(
    Type.String({ maxLength: 1024, description: "HTTP GET path probed on the first port" }),
  ),
  livenessPath: Type.Optional(
    Type.String({ maxLength: 1024, description: "HTTP GET path of the liveness probe on the first port" }),
  ),
  volumes: Type.Array(Volume, { default: [], maxItems: 8 }),
  secretMounts: Type.Optional(Type.Array(SecretMount, { maxItems: 8 })),
  initContainers: Type.Optional(
    Type.Array(InitContainer, { maxItems: 4, description: "Run before the service, in its image" }),
  ),
  configMap: Type.Optional(
    Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 253 }),
        data: Type.Record(Type.String(), Type.String({ maxLength: 65536 }), { maxProperties: 16 }),
      },
      { description: "A ConfigMap the service reads (by name, through the API), owned by the Component" },
    ),
  ),
  ingress: Type.Optional(
    Type.Object({
      path: Type.String({ maxLength: 1024 }),
      host: Type.Optional(
        ingressHost("spec.ingress.host", "The Ingress rule's host (the Platform's spec.host)"),
      ),
      className: Type.Optional(Type.String({ maxLength: 253 })),
      tls: Type.Optional(IngressTls),
    }),
  ),
  dependencies: Type.Array(Type.String({ maxLength: 63 }), { default: [], maxItems: 16 }),
  progressDeadlineSeconds: Type.Optional(
    Type.Integer({
      minimum: 10,
      maximum: 3600,
      description:
        "A rollout that makes no progress for this long fails (the Platform's spec.updatePolicy.progressDeadlineSeconds; default 600)",
    }),
  ),
  serviceAccount: Type.Optional(
    Type.Boolean({
      description:
        "The pods run as their own ServiceAccount, named after the Component (e.g. for a ClusterRoleBinding)",
    }),
  ),
  ...podSettings,
});

/** One object the component controller applied for the Component (component-inventory.ts). */
const InventoryEntry = Type.Object({
  group: Type.String({ maxLength: 253, description: "the API group; empty for the core group" }),
  kind: Type.String({ minLength: 1, maxLength: 63 }),
  namespace: Type.String({ maxLength: 63 }),
  name: Type.String({ minLength: 1, maxLength: 253 }),
  uid: Type.String({ minLength: 1, maxLength: 64 }),
});

export const ComponentStatus = Type.Object({
  phase: Type.Optional(Type.Union(componentPhases.map((phase) => Type.Literal(phase)))),
  version: Type.Optional(Type.String({ description: "The release whose rollout last completed" })),
  replicas: Type.Optional(Type.Integer()),
  readyReplicas: Type.Optional(Type.Integer()),
  ready: Type.Optional(Type.String({ description: "ready/desired pods, e.g. 1/1" })),
  message: Type.Optional(Type.String()),
  observedGeneration: Type.Optional(Type.Integer()),
  conditions: Type.Optional(Conditions),
  rolloutStartedAt: Type.Optional(
    Type.String({
      format: "date-time",
      description:
        "When the controller last changed the workload: a StatefulSet rollout that makes no progress (a pod created or becoming Ready) for spec.progressDeadlineSeconds after it fails",
    }),
  ),
  inventory: Type.Optional(
    Type.Array(InventoryEntry, {
      // at most 14 children are rendered (workload, ServiceAccount, ConfigMap, 8 claims, Service,
      // NetworkPolicy, Ingress); claims a release no longer renders stay listed until the Component goes
      maxItems: 64,
      description:
        "Every object the controller applied for this Component and has not deleted: what is pruned when the rendering drops it or the Component is deleted",
    }),
  ),
});

export const ComponentKind = defineKind({
  group,
  version,
  kind: "Component",
  plural: "components",
  singular: "component",
  shortNames: ["comp"],
  scope: "Namespaced",
  description: "One service of a Platform, rendered by the Platform controller (internal: do not edit)",
  spec: ComponentSpec,
  status: ComponentStatus,
  printerColumns: phasedColumns,
});
export type ComponentResource = Resource<typeof ComponentKind>;
