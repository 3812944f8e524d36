import { Type } from "@sinclair/typebox";
import { defineKind, type Resource } from "../kind.ts";
import { validations } from "../schema.ts";
import {
  dnsLabelPattern,
  group,
  NamedValues,
  ProviderReference,
  providerColumns,
  StringMap,
  synchronizedStatus,
  version,
} from "./common.ts";

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
