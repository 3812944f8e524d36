import { Type } from "@sinclair/typebox";
import { Duration } from "../duration.ts";
import { defineKind, type Resource } from "../kind.ts";
import { validations } from "../schema.ts";
import { CachePolicy } from "./caching.ts";
import {
  dnsLabelPattern,
  group,
  NamedValues,
  ProviderReference,
  providerColumns,
  StringEnum,
  StringMap,
  synchronizedStatus,
  version,
} from "./common.ts";

/** Which failures a retry counts: Argo's RetryPolicy names (v1alpha1 workflow_types.go). */
export const retryPolicies = ["OnFailure", "OnError", "Always"] as const;
/** Argo's default when a retryStrategy names no policy (RetryStrategy.RetryPolicyActual), and KFP's only one. */
export const defaultRetryPolicy = "OnFailure";

const Backoff = Type.Object(
  {
    duration: Duration("1s", "24h", "The wait before the first retry."),
    factor: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10,
        description:
          "Each wait is the previous one times this (Argo takes whole numbers). Default 1: a constant wait.",
      }),
    ),
    maxDuration: Type.Optional(
      Duration(
        "1s",
        "168h",
        "Retrying ends this long after the first attempt started (a retried attempt still running then is stopped). Default: none on argo; 1h on kfp and vertex (KFP's).",
      ),
    ),
  },
  {
    additionalProperties: false,
    ...validations({
      rule: "!has(self.maxDuration) || duration(self.maxDuration) >= duration(self.duration)",
      message: "maxDuration must be at least duration",
      fieldPath: ".maxDuration",
    }),
  },
);

const Retry = Type.Object(
  {
    limit: Type.Integer({
      minimum: 1,
      maximum: 100,
      description: "Retries after the first attempt (at most limit + 1 attempts).",
    }),
    policy: Type.Optional(
      StringEnum(retryPolicies, {
        description:
          "Which failures are retried: OnFailure (the step's container failed; the default), OnError (an error of Argo's rather than the container's: its pod could not run, its init or wait container failed), Always (both). kfp and vertex: OnFailure only.",
      }),
    ),
    backoff: Type.Optional(Backoff),
  },
  { additionalProperties: false, description: "Retries of this step when it fails." },
);

const Step = Type.Object(
  {
    name: Type.String({ pattern: dnsLabelPattern, maxLength: 63 }),
    image: Type.Optional(Type.String({ minLength: 1, description: "Defaults to the pipeline's image." })),
    command: Type.Optional(Type.Array(Type.String(), { maxItems: 64 })),
    args: Type.Optional(Type.Array(Type.String(), { maxItems: 256 })),
    env: Type.Optional(NamedValues("Environment of this step (added to the pipeline's).")),
    dependsOn: Type.Optional(
      Type.Array(Type.String({ maxLength: 63 }), { maxItems: 16, "x-kubernetes-list-type": "set" }),
    ),
    resources: Type.Optional(
      Type.Object(
        { requests: Type.Optional(StringMap()), limits: Type.Optional(StringMap()) },
        { additionalProperties: false },
      ),
    ),
    retry: Type.Optional(Retry),
    caching: Type.Optional(
      CachePolicy(
        "Caching of this step (over the Pipeline's and the Provider's; a Run's caching overrides it).",
      ),
    ),
  },
  { additionalProperties: false },
);

export const PipelineKind = defineKind({
  group,
  version,
  kind: "Pipeline",
  plural: "pipelines",
  singular: "pipeline",
  shortNames: ["pl"],
  scope: "Namespaced",
  description:
    "An ML pipeline: steps forming a DAG, registered with its Provider's backend (a new version per change).",
  spec: Type.Object(
    {
      provider: ProviderReference,
      image: Type.Optional(Type.String({ minLength: 1, description: "Default image of the steps." })),
      steps: Type.Array(Step, {
        minItems: 1,
        maxItems: 32,
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
      }),
      parameters: Type.Optional(
        Type.Array(
          Type.Object(
            { name: Type.String({ minLength: 1, maxLength: 253 }), default: Type.Optional(Type.String()) },
            { additionalProperties: false },
          ),
          { maxItems: 256, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"] },
        ),
      ),
      env: Type.Optional(NamedValues("Environment of every step.")),
      beamArgs: Type.Optional(NamedValues("Beam arguments (override the Provider's defaultBeamArgs).")),
      caching: Type.Optional(
        CachePolicy("Caching of every step that sets none itself (over the Provider's defaultCaching)."),
      ),
    },
    {
      additionalProperties: false,
      ...validations(
        {
          rule: "has(self.image) || self.steps.all(s, has(s.image))",
          message: "every step needs an image: set spec.image or the step's image",
          fieldPath: ".steps",
        },
        {
          rule: "self.steps.all(s, !has(s.dependsOn) || s.dependsOn.all(d, d != s.name && self.steps.exists(t, t.name == d)))",
          message: "dependsOn must name other steps of this pipeline",
          fieldPath: ".steps",
        },
      ),
    },
  ),
  status: Type.Object(synchronizedStatus),
  printerColumns: [...providerColumns, { name: "Version", type: "string", jsonPath: ".status.version" }],
});

export type Pipeline = Resource<typeof PipelineKind>;
export type PipelineStep = Pipeline["spec"]["steps"][number];
export type StepRetry = NonNullable<PipelineStep["retry"]>;
