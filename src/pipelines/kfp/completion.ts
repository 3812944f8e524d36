/** A Run's completion from KFP's run (GET /apis/v2beta1/runs/{id}), pure. */
import type { RunCompletion } from "../backend.ts";
import type { ScheduledCompletion } from "../events/scheduled.ts";
import { taskName } from "./names.ts";

export interface KfpRun {
  run_id?: string;
  state?: string;
  finished_at?: string;
  run_details?: {
    task_details?: { display_name?: string; outputs?: Record<string, { artifact_ids?: string[] }> }[];
  };
}

const succeeded = new Set(["SUCCEEDED", "SKIPPED"]);
const failed = new Set(["FAILED", "CANCELED"]);

/**
 * SUCCEEDED (or SKIPPED: nothing left to run) → Succeeded; FAILED or CANCELED → Failed; any other
 * state is still running. KFP's run details name a task's output artifacts by their ML Metadata id
 * only (no URI): an artifact `<step>:<name>` is located as `mlmd://artifacts/<id>`.
 */
export function kfpRunCompletion(
  run: KfpRun,
  wanted: { name: string; path: string }[],
): RunCompletion | undefined {
  const state = run.state ?? "";
  if (!succeeded.has(state) && !failed.has(state)) return undefined;
  const tasks = run.run_details?.task_details ?? [];
  const artifacts = wanted.flatMap(({ name, path }) => {
    const [step = "", output = ""] = path.split(":");
    const id = tasks.find((task) => task.display_name === taskName(step))?.outputs?.[output]
      ?.artifact_ids?.[0];
    return id === undefined ? [] : [{ name, location: `mlmd://artifacts/${id}` }];
  });
  return {
    state: succeeded.has(state) ? "Succeeded" : "Failed",
    ...(run.finished_at ? { finishedAt: run.finished_at } : {}),
    artifacts,
  };
}

/** The finished runs of a ListRuns page, each with its run id (pure). */
export function kfpScheduledCompletions(
  runs: readonly KfpRun[],
  wanted: { name: string; path: string }[],
): ScheduledCompletion[] {
  return runs.flatMap((run) => {
    const completion = run.run_id ? kfpRunCompletion(run, wanted) : undefined;
    return completion ? [{ ...completion, runId: run.run_id as string }] : [];
  });
}
