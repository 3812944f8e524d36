import { Type } from "@sinclair/typebox";
import { defineKind, type Resource } from "../kind.ts";
import { validations } from "../schema.ts";
import {
  group,
  ProviderReference,
  providerColumns,
  Schedule,
  schedulePolicyFields,
  schedulePolicyRules,
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
      ...schedulePolicyFields,
    },
    { additionalProperties: false, ...validations(...schedulePolicyRules) },
  ),
  status: Type.Object({ ...synchronizedStatus, events: Type.Optional(EventDeliveries) }),
  printerColumns: [
    { name: "Pipeline", type: "string", jsonPath: ".spec.pipeline" },
    { name: "Schedule", type: "string", jsonPath: ".spec.schedule.cronExpression" },
    ...providerColumns,
  ],
});

export type RunSchedule = Resource<typeof RunScheduleKind>;
