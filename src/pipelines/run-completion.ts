/**
 * A synchronized Run's life after submission, as pure functions of what was observed: when to poll
 * the backend for its completion, what a completion writes (completionState, completedAt,
 * artifacts, its run-completion event for every sink, one Event with that write), and when a
 * completed Run is deleted (its TTL, not before its events are delivered or given up on).
 */
import type { Run } from "../apis/pipelines/run.ts";
import { rfc3339 } from "../kube/conditions.ts";
import { staleCopyRetryMs } from "../kube/status-writer.ts";
import type { RunCompletion, RunDefinition, RunProgress } from "./backend.ts";
import { allSettled, completionRecord } from "./events/delivery.ts";
import { resolveSinks, type Sink } from "./events/sinks.ts";
import { withDeclaredOutputs } from "./step-io.ts";
import type { Follow, FollowAt, Settled } from "./sync/kind.ts";
import type { SharedStatus } from "./sync/status.ts";

export interface RunTiming {
  /** How long a completed Run stays when its spec sets no ttlSecondsAfterCompletion. */
  defaultTtlSeconds: number;
  /** How often a running Run's completion is polled. */
  pollMs: number;
  /** The operator's event sinks (every completion's event goes to them, the Provider's and the Run's). */
  operatorSinks?: readonly Sink[];
}

/** When a completed Run is due for deletion, and how long until then. */
export function expiry(
  run: Run,
  defaultTtlSeconds: number,
  now: number,
): { expired: boolean; inMs?: number } {
  const completedAt = run.status?.completedAt;
  if (!completedAt) return { expired: false };
  const ttl = (run.spec.ttlSecondsAfterCompletion ?? defaultTtlSeconds) * 1000;
  const remaining = Date.parse(completedAt) + ttl - now;
  return remaining <= 0 ? { expired: true } : { expired: false, inMs: remaining };
}

type Completion = Pick<
  NonNullable<Run["status"]>,
  "completionState" | "completedAt" | "artifacts" | "steps" | "failure" | "events"
>;

const recordedCompletion = (run: Run): Completion => ({
  completionState: run.status?.completionState,
  completedAt: run.status?.completedAt,
  artifacts: run.status?.artifacts,
  steps: run.status?.steps,
  failure: run.status?.failure,
  events: run.status?.events,
});

export function followRun(
  run: Run,
  status: SharedStatus,
  at: FollowAt<RunDefinition>,
  timing: RunTiming,
): Follow {
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
      artifacts: withDeclaredOutputs(run.spec.artifacts ?? [], at.definition?.pipeline.spec),
      pipelineRootStorage: at.provider?.spec.pipelineRootStorage,
      ...(at.definition ? { steps: at.definition.pipeline.spec.steps.map((step) => step.name) } : {}),
    },
    next: (completion) =>
      completed(run, completion, at.now, {
        ...timing,
        sinks: [
          ...resolveSinks(timing.operatorSinks, at.provider?.spec.eventSinks, run.spec.eventSinks).keys(),
        ],
      }),
  };
}

/**
 * The backend's answer: still running (its steps so far, or undefined from a backend that reports
 * none), or the completion to record with its Event. The steps are written only when they changed:
 * the status writer sends nothing equal to what the Run has.
 */
export function completed(
  run: Run,
  completion: RunCompletion | RunProgress | undefined,
  now: number,
  timing: RunTiming & { sinks?: readonly string[] },
): Settled {
  const recorded = recordedCompletion(run);
  if (!completion) return settledRun(run, recorded, now, timing);
  // no steps yet is no news: nothing to write
  const steps = completion.steps?.length ? completion.steps : recorded.steps;
  if (completion.state === "Running") {
    const running = settledRun(run, { ...recorded, steps }, now, timing);
    // the backend's watch enqueues the Run when its record changes: nothing to poll
    return completion.watched ? { ...running, requeueAfterMs: undefined } : running;
  }
  const succeeded = completion.state === "Succeeded";
  const settled = settledRun(
    run,
    {
      completionState: completion.state,
      completedAt: rfc3339(new Date(now)),
      artifacts: completion.artifacts,
      steps,
      failure: completion.failure,
      events: completionEvents(run, completion, timing.sinks ?? [], now),
    },
    now,
    timing,
  );
  return {
    ...settled,
    // the events are delivered by the next reconcile, once the cache holds this write
    ...(settled.status?.events ? { requeueAfterMs: staleCopyRetryMs } : {}),
    event: {
      type: succeeded ? "Normal" : "Warning",
      reason: `Run${completion.state}`,
      message: `the run ${succeeded ? "succeeded" : "failed"}`,
    },
  };
}

/** The completion's event, to be delivered to every sink (none: nothing to record). */
function completionEvents(run: Run, completion: RunCompletion, sinks: readonly string[], now: number) {
  const runId = run.status?.provider?.id ?? "";
  if (!sinks.length) return undefined;
  const owner = run.metadata.uid ?? `${run.metadata.namespace}/${run.metadata.name}`;
  return [completionRecord(owner, runId, completion, sinks, now)];
}

function settledRun(run: Run, completion: Completion, now: number, timing: RunTiming): Settled {
  const status = Object.fromEntries(Object.entries(completion).filter(([, v]) => v !== undefined));
  if (!completion.completionState) return { type: "settled", status, requeueAfterMs: timing.pollMs };
  const due = expiry({ ...run, status: { ...run.status, ...completion } }, timing.defaultTtlSeconds, now);
  // an undelivered event would be lost with the Run: it stays until delivery settles (then requeued)
  return {
    type: "settled",
    status,
    expired: due.expired && allSettled(completion.events),
    ...(due.inMs === undefined ? {} : { requeueAfterMs: due.inMs }),
  };
}
