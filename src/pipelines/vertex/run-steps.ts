/**
 * A Vertex pipeline job's steps from its job detail (pure): GetPipelineJob answers
 * `jobDetail.taskDetails[]` (google.cloud.aiplatform.v1.PipelineTaskDetail): one per task, the root
 * DAG's included; a step is the task whose `taskName` is its KFP task name (kfp/names.ts
 * `taskName`, the IR Vertex runs is KFP's), with `state` (PipelineTaskDetail.State),
 * `startTime`/`endTime` (Timestamps) and `error` (a google.rpc.Status). Vertex's record has no exit
 * code and no retry count. A task's `execution` (google.cloud.aiplatform.v1.Execution) has state
 * CACHED when it reused an earlier execution: the step's cache hit.
 */
import type { RunStepStatus } from "../backend.ts";
import { stepsOfTasks } from "../kfp/run-steps.ts";

type Seconds = number | string | { toString(): string } | null;

export interface VertexTaskDetail {
  taskName?: string | null;
  state?: string | number | null;
  startTime?: { seconds?: Seconds } | null;
  endTime?: { seconds?: Seconds } | null;
  error?: { message?: string | null } | null;
  outputs?: Record<string, { artifacts?: { uri?: string | null }[] | null }> | null;
  execution?: { state?: string | number | null } | null;
}

/** Execution.State CACHED (its number when the enum is not decoded to names). */
const cached = (state: string | number | null | undefined) => state === "CACHED" || state === 5;

const phases: Record<string, RunStepStatus["phase"]> = {
  PENDING: "Pending",
  RUNNING: "Running",
  CANCEL_PENDING: "Running",
  CANCELLING: "Running",
  SUCCEEDED: "Succeeded",
  SKIPPED: "Skipped",
  NOT_TRIGGERED: "Skipped",
  CANCELLED: "Failed",
  FAILED: "Failed",
};

/** A Timestamp as RFC 3339; undefined when unset (0: not reached). */
export function timestampText(time: { seconds?: Seconds } | null | undefined): string | undefined {
  const seconds = Number(String(time?.seconds ?? 0));
  return seconds > 0 ? new Date(seconds * 1000).toISOString() : undefined;
}

export const vertexRunSteps = (tasks: readonly VertexTaskDetail[], steps: readonly string[] | undefined) =>
  stepsOfTasks(
    tasks,
    steps,
    (task) => task.taskName,
    (task) => ({
      phase: phases[String(task.state ?? "")] ?? "Pending",
      startedAt: timestampText(task.startTime),
      finishedAt: timestampText(task.endTime),
      message: task.error?.message,
      ...(task.execution?.state == null ? {} : { cacheHit: cached(task.execution.state) }),
    }),
  );
