/**
 * A synchronized Run's life after submission, as pure functions of what was observed: when to poll
 * the backend for its completion, what a completion writes (completionState, markedCompletedAt,
 * artifacts, one Event with that write), and when a completed Run is deleted (its TTL).
 */
import type { Run } from "../apis/pipelines/run.ts";
import { rfc3339 } from "../kube/conditions.ts";
import type { RunCompletion } from "./backend.ts";
import type { Follow, FollowAt, Settled } from "./sync/kind.ts";
import type { SharedStatus } from "./sync/status.ts";

export interface RunTiming {
  /** How long a completed Run stays when its spec sets no ttlSecondsAfterCompletion. */
  defaultTtlSeconds: number;
  /** How often a running Run's completion is polled. */
  pollMs: number;
}

/** When a completed Run is due for deletion, and how long until then. */
export function expiry(
  run: Run,
  defaultTtlSeconds: number,
  now: number,
): { expired: boolean; inMs?: number } {
  const completedAt = run.status?.markedCompletedAt;
  if (!completedAt) return { expired: false };
  const ttl = (run.spec.ttlSecondsAfterCompletion ?? defaultTtlSeconds) * 1000;
  const remaining = Date.parse(completedAt) + ttl - now;
  return remaining <= 0 ? { expired: true } : { expired: false, inMs: remaining };
}

type Completion = Pick<NonNullable<Run["status"]>, "completionState" | "markedCompletedAt" | "artifacts">;

const recordedCompletion = (run: Run): Completion => ({
  completionState: run.status?.completionState,
  markedCompletedAt: run.status?.markedCompletedAt,
  artifacts: run.status?.artifacts,
});

export function followRun(run: Run, status: SharedStatus, at: FollowAt, timing: RunTiming): Follow {
  const recorded = recordedCompletion(run);
  // a run just submitted has not finished: its first poll comes one interval later
  if (!recorded.completionState && at.justSynchronized)
    return { type: "settled", requeueAfterMs: timing.pollMs };
  const id = status.provider?.id;
  if (recorded.completionState || !id || !status.provider) return settledRun(run, recorded, at.now, timing);
  return {
    type: "poll",
    provider: status.provider.name,
    id,
    wanted: {
      artifacts: run.spec.artifacts ?? [],
      pipelineRootStorage: at.provider?.spec.pipelineRootStorage,
    },
    next: (completion) => completed(run, completion, at.now, timing),
  };
}

/** The backend's answer: still running (undefined), or the completion to record with its Event. */
export function completed(
  run: Run,
  completion: RunCompletion | undefined,
  now: number,
  timing: RunTiming,
): Settled {
  if (!completion) return settledRun(run, recordedCompletion(run), now, timing);
  const succeeded = completion.state === "Succeeded";
  const settled = settledRun(
    run,
    {
      completionState: completion.state,
      markedCompletedAt: rfc3339(new Date(now)),
      artifacts: completion.artifacts,
    },
    now,
    timing,
  );
  return {
    ...settled,
    event: {
      type: succeeded ? "Normal" : "Warning",
      reason: `Run${completion.state}`,
      message: `the run ${succeeded ? "succeeded" : "failed"}`,
    },
  };
}

function settledRun(run: Run, completion: Completion, now: number, timing: RunTiming): Settled {
  const status = Object.fromEntries(Object.entries(completion).filter(([, v]) => v !== undefined));
  if (!completion.completionState) return { type: "settled", status, requeueAfterMs: timing.pollMs };
  const due = expiry({ ...run, status: { ...run.status, ...completion } }, timing.defaultTtlSeconds, now);
  return {
    type: "settled",
    status,
    expired: due.expired,
    ...(due.inMs === undefined ? {} : { requeueAfterMs: due.inMs }),
  };
}
