/**
 * A KFP run's steps from its run details (pure): GET /apis/v2beta1/runs/{id} answers
 * `run_details.task_details[]` (V2beta1PipelineTaskDetail in kfp-server-api): one per task KFP
 * executed, the root DAG's included; a step is the task whose `display_name` is its KFP task name
 * (kfp/names.ts `taskName`), with `state` (V2beta1RuntimeState), `start_time`/`end_time` (RFC 3339)
 * and `error` (a google.rpc.Status). KFP's record has no exit code and no retry count.
 */

import { clip } from "../../lib/clip.ts";
import type { RunStepStatus } from "../backend.ts";
import { maxStepMessage, orderedSteps } from "../run-steps.ts";
import { taskName } from "./names.ts";

export interface KfpTaskDetail {
  display_name?: string;
  state?: string;
  start_time?: string;
  end_time?: string;
  error?: { message?: string };
  outputs?: Record<string, { artifact_ids?: string[] }>;
}

const phases: Record<string, RunStepStatus["phase"]> = {
  PENDING: "Pending",
  RUNNING: "Running",
  CANCELING: "Running",
  PAUSED: "Pending",
  SUCCEEDED: "Succeeded",
  SKIPPED: "Skipped",
  FAILED: "Failed",
  CANCELED: "Failed",
};

/** KFP writes the zero time for a time not reached yet. */
const reached = (time: string | undefined) =>
  time && !time.startsWith("1970-01-01") && !time.startsWith("0001-01-01") ? time : undefined;

/** A backend task record's part of a step (its phase, start and end, the backend's message). */
export interface TaskView {
  phase: RunStepStatus["phase"];
  startedAt?: string;
  finishedAt?: string;
  message?: string | null;
  /** Whether the task reused an earlier execution, where the backend's record says. */
  cacheHit?: boolean;
}

/**
 * The steps of a pipeline run from the KFP-IR task records of a backend (kfp or vertex): for each of
 * the pipeline's `steps`, the task named by its KFP task name (`nameOf`), read by `view`.
 */
export function stepsOfTasks<T>(
  tasks: readonly T[],
  steps: readonly string[] | undefined,
  nameOf: (task: T) => string | null | undefined,
  view: (task: T) => TaskView,
): RunStepStatus[] {
  return orderedSteps(
    (steps ?? []).flatMap((name) => {
      const task = tasks.find((candidate) => nameOf(candidate) === taskName(name));
      if (!task) return [];
      const { phase, startedAt, finishedAt, message, cacheHit } = view(task);
      return [
        {
          name,
          phase,
          ...(startedAt ? { startedAt } : {}),
          ...(finishedAt ? { finishedAt } : {}),
          ...(message ? { message: clip(message, maxStepMessage) } : {}),
          ...(cacheHit === undefined ? {} : { cacheHit }),
        },
      ];
    }),
  );
}

export const kfpRunSteps = (tasks: readonly KfpTaskDetail[], steps: readonly string[] | undefined) =>
  stepsOfTasks(
    tasks,
    steps,
    (task) => task.display_name,
    (task) => ({
      phase: phases[task.state ?? ""] ?? "Pending",
      startedAt: reached(task.start_time),
      finishedAt: reached(task.end_time),
      message: task.error?.message,
    }),
  );
