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
 * The schedule kfp and vertex are sent, once `policyProblem` (the backend's refusals of the policy)
 * has nothing to say, else an Error naming the field: a startTime already past is left out, as both
 * would start at once the runs missed since then (KFP counts its intervals from start_time, Vertex
 * catches up).
 */
export function sentSchedule(
  definition: RunScheduleDefinition,
  policyProblem: (definition: RunScheduleDefinition) => string | undefined,
  now: number,
): { cronExpression: string; startTime?: string; endTime?: string } {
  const problem = policyProblem(definition);
  if (problem) throw new Error(problem);
  const { cronExpression, startTime, endTime } = definition.schedule;
  return {
    cronExpression,
    ...(startTime && Date.parse(startTime) > now ? { startTime } : {}),
    ...(endTime ? { endTime } : {}),
  };
}
