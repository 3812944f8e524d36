import type { RunView } from "../../views.ts";

/**
 * What a person calls a run's state (pure): its completion once it has one; Running once the backend
 * has it (synchronized, not complete); else the synchronization state (Creating, Failed, …).
 */
export function runState(run: RunView): string {
  const status = run.status;
  if (status?.completionState) return status.completionState;
  if (status?.state === "Succeeded") return "Running";
  return status?.state ?? "Pending";
}

/** The name of the Pipeline a run names (`name` or `name:version`). */
export const pipelineOfRun = (run: RunView): string => run.spec.pipeline.split(":")[0] ?? run.spec.pipeline;

/** From creation to completion (or to `now` while it runs), e.g. `42s`, `3m 5s`. */
export function runDuration(run: RunView, now: Date): string {
  if (!run.createdAt) return "—";
  const end = run.status?.completedAt ? new Date(run.status.completedAt) : now;
  const seconds = Math.max(0, Math.round((end.getTime() - new Date(run.createdAt).getTime()) / 1000));
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
}
