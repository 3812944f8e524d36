import { Type } from "@sinclair/typebox";
import { Conditions } from "../condition.ts";
import { defineKind, type Resource } from "../kind.ts";
import { validations } from "../schema.ts";
import {
  AcknowledgedGates,
  componentNames,
  defaultSizes,
  EnvVar,
  group,
  growOnlyQuantity,
  IngressTls,
  ingressHost,
  logLevels,
  phasedColumns,
  podSettings,
  TrustedProxies,
  Version,
  version,
} from "./schemas.ts";

export const platformPhases = [
  "Installing",
  "Running",
  "Updating",
  "Stopping",
  "Stopped",
  "Starting",
  "Degraded",
  "Failed",
  "Deleting",
] as const;
export type PlatformPhase = (typeof platformPhases)[number];

const ComponentOverride = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ description: "false: the user brings their own; default true" })),
    image: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: "replaces the release's image, only when spec.allowImageOverrides is true",
      }),
    ),
    replicas: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    env: Type.Optional(Type.Array(EnvVar, { maxItems: 64 })),
    ...podSettings,
  },
  { additionalProperties: false },
);

const Storage = Type.Object(
  {
    storageClassName: Type.Optional(
      Type.String({ minLength: 1, maxLength: 253, description: "unset: the cluster's default class" }),
    ),
    artifactsSize: Type.Optional(growOnlyQuantity("spec.storage.artifactsSize", defaultSizes.artifactsSize)),
    registrySize: Type.Optional(growOnlyQuantity("spec.storage.registrySize", defaultSizes.registrySize)),
    builderCacheSize: Type.Optional(
      growOnlyQuantity("spec.storage.builderCacheSize", defaultSizes.builderCacheSize),
    ),
    databaseSize: Type.Optional(growOnlyQuantity("spec.storage.databaseSize", defaultSizes.databaseSize)),
  },
  { default: {} },
);

export const updateFailurePolicies = ["Halt", "Rollback"] as const;
export type UpdateFailurePolicy = (typeof updateFailurePolicies)[number];

/** Kubernetes' default progressDeadlineSeconds for a Deployment. */
export const defaultProgressDeadlineSeconds = 600;

const UpdatePolicy = Type.Object(
  {
    onFailure: Type.Optional(
      Type.Union(
        updateFailurePolicies.map((policy) => Type.Literal(policy)),
        {
          default: "Halt",
          description:
            "When a component fails during a version update: Halt (stay Failed at the new version) or Rollback (return to the last version that was Running)",
        },
      ),
    ),
    progressDeadlineSeconds: Type.Optional(
      Type.Integer({
        minimum: 10,
        maximum: 3600,
        default: defaultProgressDeadlineSeconds,
        description:
          "A component whose rollout makes no progress for this long has failed: a Deployment's progressDeadlineSeconds, and the same rule the component controller applies to StatefulSets (Kubernetes gives them none)",
      }),
    ),
  },
  { default: {}, additionalProperties: false },
);

export const PlatformSpec = Type.Object(
  {
    version: Type.Optional({
      ...Version,
      description: "The Slipway release to run; defaults to the operator's own",
    }),
    stopped: Type.Optional(
      Type.Boolean({ default: false, description: "true stops every component (data is kept)" }),
    ),
    restartedAt: Type.Optional(
      Type.String({ maxLength: 64, description: "Changing it rolls every component in dependency order" }),
    ),
    host: Type.Optional(
      ingressHost("spec.host", "FQDN of the Ingress: every rule's host, and the TLS certificate's name"),
    ),
    ingress: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean({ default: true })),
          className: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })),
          tls: Type.Optional(IngressTls),
          trustedProxies: Type.Optional(TrustedProxies),
        },
        { default: {} },
      ),
    ),
    singleNode: Type.Optional(
      Type.Boolean({
        default: true,
        description: "true: volumes are ReadWriteOnce; false: ReadWriteMany",
      }),
    ),
    storage: Type.Optional(Storage),
    logLevel: Type.Optional(
      Type.Union(
        logLevels.map((level) => Type.Literal(level)),
        { default: "INFO" },
      ),
    ),
    allowImageOverrides: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          "true: spec.components.*.image replaces the release's images (runs any image as the platform's ServiceAccounts)",
      }),
    ),
    updatePolicy: Type.Optional(UpdatePolicy),
    acknowledgedGates: Type.Optional(AcknowledgedGates),
    components: Type.Optional(
      Type.Object(
        Object.fromEntries(componentNames.map((name) => [name, Type.Optional(ComponentOverride)])),
        {
          default: {},
          additionalProperties: false,
          description: "Per-component overrides",
        },
      ),
    ),
  },
  {
    ...validations({
      rule: "!has(self.ingress) || !has(self.ingress.tls) || has(self.host)",
      message: "spec.ingress.tls needs spec.host: the name the certificate is for",
      fieldPath: ".host",
      reason: "FieldValueRequired",
    }),
  },
);

export const PlatformComponentStatus = Type.Object({
  name: Type.String(),
  phase: Type.String(),
  ready: Type.String({ description: "ready/desired pods, e.g. 1/1" }),
  version: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
  endpoint: Type.Optional(
    Type.String({
      description: "Where the service answers in the cluster, e.g. http://slipway-mlflow.slipway.svc:5000",
    }),
  ),
});

/** A version update that failed and was rolled back (spec.updatePolicy.onFailure: Rollback). */
export const PlatformRollback = Type.Object({
  from: Type.String({ description: "The release that failed (spec.version while the rollback holds)" }),
  to: Type.String({ description: "The release rolled back to: the last one that was Running" }),
  component: Type.String({ description: "The component that failed" }),
  reason: Type.String({ description: "Why it failed" }),
});

export const PlatformStatus = Type.Object({
  phase: Type.Optional(Type.Union(platformPhases.map((phase) => Type.Literal(phase)))),
  version: Type.Optional(Type.String({ description: "The release that actually runs" })),
  ready: Type.Optional(Type.String({ description: "Ready components / enabled components, e.g. 5/7" })),
  message: Type.Optional(Type.String()),
  observedGeneration: Type.Optional(Type.Integer()),
  conditions: Type.Optional(Conditions),
  components: Type.Optional(Type.Array(PlatformComponentStatus)),
  rollback: Type.Optional(PlatformRollback),
  provider: Type.Optional(
    Type.String({ description: "The pipelines Provider of the platform's workflow engine (same namespace)" }),
  ),
});

export const PlatformKind = defineKind({
  group,
  version,
  kind: "Platform",
  plural: "platforms",
  singular: "platform",
  shortNames: ["plat", "slw"],
  scope: "Namespaced",
  description: "An installation of the Slipway platform: its services, their versions, storage and state",
  spec: PlatformSpec,
  status: PlatformStatus,
  printerColumns: phasedColumns,
});
export type PlatformResource = Resource<typeof PlatformKind>;
