/**
 * A schedule's policy as the backends get it (pure): the fields of a RunSchedule (or of one of a
 * RunConfiguration's schedules) with their defaults.
 */
import type { Static } from "@sinclair/typebox";
import type { schedulePolicyFields } from "../apis/pipelines/common.ts";
import type { RunScheduleDefinition } from "./backend.ts";

type PolicyFields = {
  [K in keyof typeof schedulePolicyFields]?: Static<(typeof schedulePolicyFields)[K]>;
};

export type SchedulePolicy = Pick<
  RunScheduleDefinition,
  "concurrencyPolicy" | "maxConcurrency" | "catchUp" | "startingDeadlineSeconds"
>;

/** Forbid by default (one run at a time, as before concurrencyPolicy existed); Allow keeps maxConcurrency unset when not said. */
export function schedulePolicy(fields: PolicyFields): SchedulePolicy {
  const concurrencyPolicy = fields.concurrencyPolicy ?? "Forbid";
  return {
    concurrencyPolicy,
    maxConcurrency: concurrencyPolicy === "Allow" ? fields.maxConcurrency : 1,
    catchUp: fields.catchUp ?? false,
    startingDeadlineSeconds: fields.startingDeadlineSeconds,
  };
}

/** The most runs at once kfp and vertex take when Allow does not say (KFP's own maximum, 10). */
export const defaultAllowedConcurrency = 10;

/**
 * What a backend that can neither stop a running run nor bound catch-up says of a schedule asking it
 * to (kfp, vertex): why, per field. Argo does both and has refusals of its own (argo/backend.ts).
 */
export interface PolicyRefusals {
  /** why concurrencyPolicy Replace cannot be */
  replace: string;
  /** why startingDeadlineSeconds cannot be */
  startingDeadline: string;
}

/** The refusal of a schedule's policy, naming its field; undefined when the backend can keep it. */
function schedulePolicyProblem(
  definition: RunScheduleDefinition,
  refusals: PolicyRefusals,
): string | undefined {
  if (definition.concurrencyPolicy === "Replace") return `spec.concurrencyPolicy: ${refusals.replace}`;
  if (definition.startingDeadlineSeconds !== undefined)
    return `spec.startingDeadlineSeconds: ${refusals.startingDeadline}`;
  return undefined;
}

/**
 * The schedule kfp and vertex are sent, once the backend's `refusals` of the policy have nothing to
 * say, else an Error naming the field: a startTime already past is left out, as both would start at
 * once the runs missed since then (KFP counts its intervals from start_time, Vertex catches up).
 */
export function sentSchedule(
  definition: RunScheduleDefinition,
  refusals: PolicyRefusals,
  now: number,
): { cronExpression: string; startTime?: string; endTime?: string } {
  const problem = schedulePolicyProblem(definition, refusals);
  if (problem) throw new Error(problem);
  const { cronExpression, startTime, endTime } = definition.schedule;
  return {
    cronExpression,
    ...(startTime && Date.parse(startTime) > now ? { startTime } : {}),
    ...(endTime ? { endTime } : {}),
  };
}
