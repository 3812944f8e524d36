import { Type } from "@sinclair/typebox";
import { defineKind, type Resource } from "../kind.ts";
import {
  group,
  ProviderReference,
  providerColumns,
  Schedule,
  synchronizedStatus,
  version,
} from "./common.ts";
import { EventDeliveries } from "./events.ts";
import { runFields } from "./run.ts";

export const RunScheduleKind = defineKind({
  group,
  version,
  kind: "RunSchedule",
  plural: "runschedules",
  singular: "runschedule",
  shortNames: ["rsched"],
  scope: "Namespaced",
  description: "A recurring run of a Pipeline in its Provider's backend.",
  spec: Type.Object(
    {
      provider: ProviderReference,
      ...runFields,
      schedule: Schedule,
      maxConcurrency: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 10,
          description:
            "At most this many of its runs at once (default 1; kfp: max_concurrency, vertex: maxConcurrentRunCount; argo ignores it).",
        }),
      ),
      catchUp: Type.Optional(
        Type.Boolean({
          description:
            "Start the runs missed while paused or over maxConcurrency (default false; kfp: no_catchup=false, vertex: allowQueueing; argo ignores it). A startTime in the past never starts missed runs.",
        }),
      ),
    },
    { additionalProperties: false },
  ),
  status: Type.Object({ ...synchronizedStatus, events: Type.Optional(EventDeliveries) }),
  printerColumns: [
    { name: "Pipeline", type: "string", jsonPath: ".spec.pipeline" },
    { name: "Schedule", type: "string", jsonPath: ".spec.schedule.cronExpression" },
    ...providerColumns,
  ],
});

export type RunSchedule = Resource<typeof RunScheduleKind>;
