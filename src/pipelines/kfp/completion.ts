/** A Run's completion from KFP's run (GET /apis/v2beta1/runs/{id}), pure. */
import type { RunCompletion, RunProgress } from "../backend.ts";
import type { ScheduledCompletion } from "../events/scheduled.ts";
import { finishedRun, observedRun } from "../run-steps.ts";
import { taskName } from "./names.ts";
import { type KfpTaskDetail, kfpRunSteps } from "./run-steps.ts";

export interface KfpRun {
  run_id?: string;
  state?: string;
  finished_at?: string;
  error?: { message?: string };
  run_details?: { task_details?: KfpTaskDetail[] };
}

const kfpSaid = { backend: "KFP", run: "run" };

const succeeded = new Set(["SUCCEEDED", "SKIPPED"]);
const failed = new Set(["FAILED", "CANCELED"]);

/**
 * SUCCEEDED (or SKIPPED: nothing left to run) → Succeeded; FAILED or CANCELED → Failed; any other
 * state is still running. KFP's run details name a task's output artifacts by their ML Metadata id
 * only (no URI): an artifact `<step>:<name>` is located as `mlmd://artifacts/<id>`. The steps are
 * the run details' tasks of the pipeline's `steps` (run-steps.ts); a failed run names its step.
 */
export function kfpRunCompletion(
  run: KfpRun,
  wanted: { name: string; path: string }[],
  stepNames?: readonly string[],
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
  const steps = kfpRunSteps(tasks, stepNames);
  return finishedRun({
    succeeded: succeeded.has(state),
    finishedAt: run.finished_at,
    artifacts,
    steps,
    runMessage: run.error?.message,
    said: kfpSaid,
  });
}

/** What one read of the run says: its completion, or while it runs its steps so far. */
export function kfpRunObservation(
  run: KfpRun,
  wanted: { name: string; path: string }[],
  stepNames?: readonly string[],
): RunCompletion | RunProgress {
  return observedRun(kfpRunCompletion(run, wanted, stepNames), () =>
    kfpRunSteps(run.run_details?.task_details ?? [], stepNames),
  );
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
