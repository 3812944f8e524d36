import { Type } from "@sinclair/typebox";
import { Conditions } from "../condition.ts";
import { defineKind, type Resource } from "../kind.ts";
import { validations } from "../schema.ts";
import {
  ArtifactLocation,
  group,
  ProviderReference,
  Schedule,
  StringEnum,
  schedulePolicyFields,
  schedulePolicyRules,
  version,
} from "./common.ts";
import { runFields } from "./run.ts";

/** One of a RunConfiguration's schedules: when (as a RunSchedule's schedule) and its policy (as a RunSchedule's). */
export const ScheduleTrigger = Type.Object(
  { ...Schedule.properties, ...schedulePolicyFields },
  {
    additionalProperties: false,
    ...validations(...(Schedule["x-kubernetes-validations"] ?? []), ...schedulePolicyRules),
  },
);

export const RunConfigurationKind = defineKind({
  group,
  version,
  kind: "RunConfiguration",
  plural: "runconfigurations",
  singular: "runconfiguration",
  shortNames: ["runconf"],
  scope: "Namespaced",
  description:
    "A run and what triggers it: schedules, changes of the pipeline or run spec, other configurations' runs.",
  spec: Type.Object(
    {
      provider: ProviderReference,
      run: Type.Object(runFields, { additionalProperties: false }),
      triggers: Type.Optional(
        Type.Object(
          {
            schedules: Type.Optional(Type.Array(ScheduleTrigger, { maxItems: 32 })),
            onChange: Type.Optional(
              Type.Array(StringEnum(["pipeline", "runSpec"] as const), {
                maxItems: 2,
                "x-kubernetes-list-type": "set",
              }),
            ),
            runConfigurations: Type.Optional(
              Type.Array(Type.String({ minLength: 1, maxLength: 253 }), {
                maxItems: 32,
                "x-kubernetes-list-type": "set",
                description:
                  "RunConfigurations whose succeeded runs trigger a run of this one: `name` (this namespace) or `namespace/name` (another namespace, whose Provider's allowedNamespaces must allow this one).",
              }),
            ),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
  status: Type.Object({
    provider: Type.Optional(Type.Object({ name: Type.String() })),
    observedGeneration: Type.Optional(Type.Integer()),
    conditions: Type.Optional(Conditions),
    triggers: Type.Optional(
      Type.Object({
        pipelineVersion: Type.Optional(Type.String()),
        runSpecVersion: Type.Optional(Type.String()),
        runConfigurations: Type.Optional(
          Type.Unsafe<Record<string, string>>({
            type: "object",
            additionalProperties: { type: "string" },
            description: "name → id of the succeeded run that last triggered this one",
          }),
        ),
      }),
    ),
    latestRuns: Type.Optional(
      Type.Object({
        succeeded: Type.Optional(
          Type.Object({ id: Type.String(), artifacts: Type.Optional(Type.Array(ArtifactLocation)) }),
        ),
      }),
    ),
  }),
  printerColumns: [
    { name: "Provider", type: "string", jsonPath: ".spec.provider" },
    { name: "Pipeline", type: "string", jsonPath: ".spec.run.pipeline" },
    { name: "LastSucceeded", type: "string", jsonPath: ".status.latestRuns.succeeded.id" },
  ],
});

export type RunConfiguration = Resource<typeof RunConfigurationKind>;
