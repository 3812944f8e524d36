/**
 * What every backend's record of a run's steps becomes (pure): the steps in the order they started
 * (not started yet: last), then by name; and a failed run's one-line failure naming its first failed
 * step. Each backend maps its own record to RunStepStatus (argo/steps.ts, kfp/run-steps.ts,
 * vertex/run-steps.ts).
 */
import { clip } from "../lib/clip.ts";
import type { RunCompletion, RunProgress, RunStepStatus } from "./backend.ts";

/** Code-unit order (not the locale's): a time not reached yet, `~`, sorts after every RFC 3339 time. */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export const maxStepMessage = 1024;
const maxFailure = 2048;

/** What one read of a run says: its completion once it has finished, else its steps so far. */
export const observedRun = (
  completion: RunCompletion | undefined,
  stepsSoFar: () => RunStepStatus[],
): RunCompletion | RunProgress => completion ?? { state: "Running", steps: stepsSoFar() };

/** A finished run as the backend recorded it; `runMessage`: its own word on the run, for a failure. */
export interface FinishedRun {
  succeeded: boolean;
  startedAt?: string | null;
  finishedAt?: string | null;
  artifacts: RunCompletion["artifacts"];
  steps: RunStepStatus[];
  runMessage?: string;
  said: { backend: string; run: string };
}

/** The completion of a finished run: its steps where the backend recorded any, a failure's one line. */
export function finishedRun(run: FinishedRun): RunCompletion {
  const { succeeded, startedAt, finishedAt, artifacts, steps } = run;
  return {
    state: succeeded ? "Succeeded" : "Failed",
    ...(startedAt ? { startedAt } : {}),
    ...(finishedAt ? { finishedAt } : {}),
    artifacts,
    ...(steps.length ? { steps } : {}),
    ...(succeeded ? {} : { failure: runFailure(steps, run.runMessage, run.said) }),
  };
}

export function orderedSteps(steps: RunStepStatus[]): RunStepStatus[] {
  return steps.sort((a, b) => byText(a.startedAt ?? "~", b.startedAt ?? "~") || byText(a.name, b.name));
}

/**
 * Why a failed run failed, in one line: the first step that failed (by its finish) and its reason,
 * else the backend's own message about the run (a failure no step had: e.g. it could not start);
 * `said`: the backend's name and what it calls a run.
 */
export function runFailure(
  steps: readonly RunStepStatus[],
  runMessage: string | undefined,
  said: { backend: string; run: string },
): string {
  const failed = steps
    .filter((step) => step.phase === "Failed")
    .sort((a, b) => byText(a.finishedAt ?? "~", b.finishedAt ?? "~"))[0];
  const noReason = `${said.backend} gave no reason`;
  if (!failed) return clip(`the ${said.run} failed: ${runMessage || noReason}`, maxFailure);
  const exit =
    failed.exitCode === undefined || failed.message?.includes("exit code")
      ? ""
      : ` (exit code ${failed.exitCode})`;
  return clip(`step ${failed.name} failed: ${failed.message || noReason}${exit}`, maxFailure);
}
