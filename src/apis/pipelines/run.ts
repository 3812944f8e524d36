import { Type } from "@sinclair/typebox";
import { defineKind, type Resource } from "../kind.ts";
import { validations } from "../schema.ts";
import { CachePolicy } from "./caching.ts";
import {
  ArtifactLocation,
  group,
  OutputArtifact,
  Parameters,
  PipelineReference,
  ProviderReference,
  providerColumns,
  StringEnum,
  synchronizedStatus,
  version,
} from "./common.ts";
import { EventDeliveries, EventSinks } from "./events.ts";

/** What a run executes; shared by Run, RunSchedule and RunConfiguration.spec.run. */
export const runFields = {
  pipeline: PipelineReference,
  experimentName: Type.Optional(Type.String({ maxLength: 253 })),
  parameters: Type.Optional(Parameters),
  artifacts: Type.Optional(
    Type.Array(OutputArtifact, {
      maxItems: 64,
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
      description: "Output artifacts whose locations the run records.",
    }),
  ),
};

/** A step's phase, whatever the backend (Argo's Error → Failed; its Skipped and Omitted → Skipped). */
export const runStepPhases = ["Pending", "Running", "Succeeded", "Failed", "Skipped"] as const;

/** One step of a run as its backend recorded it (argo: the Workflow's node of the step's task). */
export const RunStep = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 253, description: "The pipeline step's name." }),
    phase: StringEnum(runStepPhases, { description: "Pending, Running, Succeeded, Failed or Skipped." }),
    startedAt: Type.Optional(Type.String({ format: "date-time", description: "When the step started." })),
    finishedAt: Type.Optional(Type.String({ format: "date-time", description: "When the step finished." })),
    retries: Type.Optional(
      Type.Integer({ minimum: 1, description: "Attempts after the first (absent: it ran once)." }),
    ),
    exitCode: Type.Optional(
      Type.Integer({
        description: "Exit code of the step's container (of its last attempt), once it exited.",
      }),
    ),
    message: Type.Optional(
      Type.String({ maxLength: 1024, description: "Why the step is in this phase, as the backend says." }),
    ),
    cacheHit: Type.Optional(
      Type.Boolean({
        description:
          "Whether the step reused an earlier execution's outputs instead of running, as the backend says (argo: its node's memoizationStatus.hit; vertex: the task's execution state CACHED). Absent: the backend did not say.",
      }),
    ),
    reusedRun: Type.Optional(
      Type.String({
        maxLength: 253,
        description:
          "A cache hit: the backend's run whose execution it reused, where the backend says (argo: the Workflow that saved the cache entry, once the run completed).",
      }),
    ),
  },
  { additionalProperties: false },
);

/** The caching policy a step of a run has: each field from the most specific level that sets it. */
export const StepCaching = Type.Object(
  {
    step: Type.String({ minLength: 1, maxLength: 253, description: "The pipeline step's name." }),
    enabled: Type.Boolean({ description: "Whether the step may reuse an earlier execution." }),
    maxAge: Type.Optional(Type.String({ maxLength: 32, description: "How old a reused execution may be." })),
  },
  { additionalProperties: false },
);

/** A year: longer keeps are not a Run's job (and every duration the CRDs accept must be bounded). */
export const maxTtlSecondsAfterCompletion = 365 * 86_400;

export const RunKind = defineKind({
  group,
  version,
  kind: "Run",
  plural: "runs",
  singular: "run",
  shortNames: ["plrun"],
  scope: "Namespaced",
  description: "One run of a Pipeline in its Provider's backend; deleted a while after it completes.",
  spec: Type.Object(
    {
      provider: ProviderReference,
      ...runFields,
      ttlSecondsAfterCompletion: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: maxTtlSecondsAfterCompletion,
          description:
            "Delete the Run this long after it completes (operator default if unset; at most 365 days).",
        }),
      ),
      eventSinks: Type.Optional(EventSinks),
      caching: Type.Optional(
        CachePolicy(
          "Caching of every step of this run, over the step's, the Pipeline's and the Provider's (e.g. enabled: false runs every step afresh).",
        ),
      ),
    },
    {
      additionalProperties: false,
      ...validations({
        rule: "self == oldSelf",
        message: "a Run's spec is immutable: create a new Run instead",
      }),
    },
  ),
  status: Type.Object({
    ...synchronizedStatus,
    completionState: Type.Optional(StringEnum(["Succeeded", "Failed"] as const)),
    completedAt: Type.Optional(
      Type.String({
        format: "date-time",
        description: "When the run completed (v1alpha1: markedCompletedAt).",
      }),
    ),
    artifacts: Type.Optional(Type.Array(ArtifactLocation)),
    steps: Type.Optional(
      Type.Array(RunStep, {
        maxItems: 64,
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
        description:
          "Each step the backend has started or decided on, from its own record, as of the last poll.",
      }),
    ),
    caching: Type.Optional(
      Type.Array(StepCaching, {
        maxItems: 64,
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["step"],
        description:
          "The caching policy each step runs with (the Run's, else the step's, the Pipeline's, the Provider's). Absent: no level sets caching, every step runs.",
      }),
    ),
    failure: Type.Optional(
      Type.String({
        maxLength: 2048,
        description: "Why a failed run failed: the failing step and its reason (or the backend's message).",
      }),
    ),
    events: Type.Optional(EventDeliveries),
  }),
  printerColumns: [
    // the run's outcome, not the backend synchronization (Sync, `-o wide`): a failed run reads Failed only
    { name: "Pipeline", type: "string", jsonPath: ".spec.pipeline" },
    ...providerColumns.filter((column) => column.name !== "Sync"),
    { name: "Completion", type: "string", jsonPath: ".status.completionState" },
    ...providerColumns
      .filter((column) => column.name === "Sync")
      .map((column) => ({ ...column, priority: 1 })),
  ],
});

export type Run = Resource<typeof RunKind>;
