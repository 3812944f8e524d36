import { type TSchema, type TUnsafe, Type } from "@sinclair/typebox";
import { Conditions } from "../condition.ts";
import { Duration } from "../duration.ts";
import { defineKind, type Resource } from "../kind.ts";
import { validations } from "../schema.ts";

function StringEnum<const T extends readonly string[]>(
  values: T,
  options: Record<string, unknown> = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...options });
}

/** A string → string map as a structural schema (TypeBox's Record uses patternProperties, which CRDs refuse). */
function StringMap(
  options: Record<string, unknown> = {},
  maxValueLength = 253,
): TUnsafe<Record<string, string>> {
  return Type.Unsafe<Record<string, string>>({
    type: "object",
    additionalProperties: { type: "string", maxLength: maxValueLength },
    ...options,
  });
}

function Optional<T extends TSchema>(schema: T) {
  return Type.Optional(schema);
}

/** `s3://bucket/key` or `gs://bucket/key`; the bucket follows the S3/GCS naming rules, the key is not empty. */
export const artifactUriPattern = "^(s3|gs)://[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]/.+$";
/** The longest build timeout: a week. */
export const maxTimeout = "168h";

/**
 * Label keys a build may not set on its Job and pod: those of the operator's own domain (they tie a
 * Job to its build, and the platform's NetworkPolicies select pods by them), Kubernetes' (kubernetes.io,
 * k8s.io, x-k8s.io and their subdomains: `app.kubernetes.io/*` marks a build's pod for the registry's
 * and object store's NetworkPolicies), Argo's (a pipeline step's `workflows.argoproj.io/workflow`
 * admits it to MLflow) and the Job controller's.
 */
export const reservedLabelDomains = ["slipway.dev", "kubernetes.io", "k8s.io", "x-k8s.io", "argoproj.io"];
export const reservedLabelKeys = ["job-name", "controller-uid"];

const labelKeyPattern =
  "^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$";
const labelValuePattern = "^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$";

/** True for a label key a build may not set (the CEL rule below says the same). */
export function reservedLabelKey(key: string): boolean {
  const slash = key.indexOf("/");
  const domain = slash >= 0 ? key.slice(0, slash) : "";
  return (
    reservedLabelKeys.includes(key) ||
    reservedLabelDomains.some((d) => domain === d || domain.endsWith(`.${d}`))
  );
}

const celList = (values: string[]) => `[${values.map((v) => `'${v}'`).join(", ")}]`;
const reservedLabelRule = [
  `!self.exists(k, k in ${celList(reservedLabelKeys)}`,
  `|| (k.contains('/') && ${celList(reservedLabelDomains)}.exists(d, k.split('/')[0] == d || k.split('/')[0].endsWith('.' + d))))`,
].join(" ");

/** A map of resource quantities (`cpu: "1"`, `memory: 2Gi`), each one checked by the API server. */
function Quantities() {
  return StringMap({
    maxProperties: 16,
    ...validations({
      rule: "self.all(k, isQuantity(self[k]))",
      message: "every value is a quantity (e.g. 500m, 2, 2Gi)",
      reason: "FieldValueInvalid",
    }),
  });
}

export const BuildArg = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128, pattern: "^[A-Za-z_][A-Za-z0-9_]*$" }),
    value: Optional(Type.String({ maxLength: 4096 })),
    valueFrom: Optional(
      Type.Object({
        secretKeyRef: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 253 }),
          key: Type.String({ minLength: 1, maxLength: 253 }),
        }),
      }),
    ),
  },
  {
    ...validations({
      rule: "has(self.value) != has(self.valueFrom)",
      message: "a build argument has exactly one of value or valueFrom",
      reason: "FieldValueInvalid",
    }),
  },
);

export const ImageBuildSpec = Type.Object({
  project: Type.String({
    minLength: 1,
    maxLength: 63,
    pattern: "^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$",
    description: "What the image belongs to; feeds the naming template.",
  }),
  name: Type.String({ minLength: 1, maxLength: 63, pattern: "^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$" }),
  version: Type.String({
    minLength: 1,
    maxLength: 128,
    pattern: "^[A-Za-z0-9_][A-Za-z0-9_.-]*$",
    description: "Usually the image tag.",
  }),
  artifactUri: Type.String({
    maxLength: 1024,
    pattern: artifactUriPattern,
    description:
      "The build context: every object under this prefix (s3://bucket/prefix or gs://bucket/prefix).",
  }),
  baseImage: Optional(
    Type.String({ minLength: 1, maxLength: 512, description: "Passed as build argument BASE_IMAGE." }),
  ),
  dockerfile: Optional(
    Type.String({
      minLength: 1,
      maxLength: 512,
      description: "Path in the build context; default Dockerfile.",
      ...validations({
        rule: "!self.split('/').exists(p, p == '..')",
        message: "a path inside the build context (no '..')",
        reason: "FieldValueInvalid",
      }),
    }),
  ),
  buildArgs: Optional(
    Type.Array(BuildArg, {
      maxItems: 64,
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
    }),
  ),
  labels: Optional(
    StringMap(
      {
        maxProperties: 32,
        description: "Labels of the build Job and its pod.",
        ...validations(
          {
            rule: `self.all(k, k.size() <= 253 && k.matches('${labelKeyPattern}') && self[k].matches('${labelValuePattern}'))`,
            message:
              "label keys are qualified names (an optional DNS prefix and '/', then at most 63 letters, digits, '-', '_', '.') and values at most 63 of those, starting and ending alphanumeric",
            reason: "FieldValueInvalid",
          },
          {
            rule: reservedLabelRule,
            message: `label keys ${reservedLabelKeys.join(", ")} and those of the domains ${reservedLabelDomains.join(", ")} (and their subdomains) are reserved`,
            reason: "FieldValueForbidden",
          },
        ),
      },
      63,
    ),
  ),
  resources: Optional(
    Type.Object(
      { requests: Optional(Quantities()), limits: Optional(Quantities()) },
      { description: "Of the build container." },
    ),
  ),
  timeout: Optional(Duration("1s", maxTimeout, `Default: the platform's (30m); at most ${maxTimeout}.`)),
  backoffLimit: Optional(
    Type.Integer({ minimum: 0, maximum: 10, description: "Retries of the build pod; default 2." }),
  ),
});

export const imageBuildPhases = ["Pending", "Building", "Succeeded", "Failed"] as const;
export type ImageBuildPhase = (typeof imageBuildPhases)[number];

export const ImageBuildStatus = Type.Object({
  phase: Optional(StringEnum(imageBuildPhases)),
  image: Optional(Type.String({ description: "The full image reference." })),
  digest: Optional(Type.String()),
  reused: Optional(
    Type.Boolean({ description: "True when the image already existed and nothing was built." }),
  ),
  job: Optional(
    Type.Object(
      {
        namespace: Type.String({ minLength: 1, maxLength: 63 }),
        name: Type.String({ minLength: 1, maxLength: 63 }),
      },
      { description: "The build's Job (the configured buildNamespace, or the build's own)." },
    ),
  ),
  attempts: Optional(Type.Integer()),
  startedAt: Optional(Type.String({ format: "date-time" })),
  completedAt: Optional(Type.String({ format: "date-time" })),
  message: Optional(Type.String()),
  conditions: Optional(Conditions),
  observedGeneration: Optional(Type.Integer()),
});

export const ImageBuildKind = defineKind({
  group: "builds.slipway.dev",
  version: "v1beta1",
  kind: "ImageBuild",
  plural: "imagebuilds",
  singular: "imagebuild",
  shortNames: ["ib"],
  scope: "Namespaced",
  description:
    "An image built from an artifact in S3 or GCS and pushed to the platform's registry; never rebuilt if it exists.",
  spec: ImageBuildSpec,
  status: ImageBuildStatus,
  printerColumns: [
    { name: "Image", type: "string", jsonPath: ".status.image" },
    { name: "Phase", type: "string", jsonPath: ".status.phase" },
    { name: "Reused", type: "boolean", jsonPath: ".status.reused" },
    { name: "Message", type: "string", jsonPath: ".status.message", priority: 1 },
  ],
});

export type ImageBuild = Resource<typeof ImageBuildKind>;
export type ImageBuildSpec = ImageBuild["spec"];
export type ImageBuildStatus = NonNullable<ImageBuild["status"]>;
export type BuildArg = NonNullable<ImageBuildSpec["buildArgs"]>[number];
