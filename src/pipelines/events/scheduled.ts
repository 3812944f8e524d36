/**
 * Runs a schedule started in the backend (Argo CronWorkflow's Workflows, KFP recurring runs, Vertex
 * schedules) are tracked: the RunSchedule's reconcile asks the backend for its finished runs not yet
 * marked, records their completions in the RunSchedule's `status.events` (stable ids: recording one
 * twice is a no-op), and only after that write marks them in the backend ("release"), so a crash
 * in between records nothing twice and loses nothing. This file is the pure part.
 */
import type { RunCompletion } from "../backend.ts";
import { newDeliveryRecord } from "./delivery.ts";
import { completionEventId, type DeliveryRecord, runCompletionType } from "./event.ts";

/** A finished run of a schedule, still held by the backend. */
export interface ScheduledCompletion extends RunCompletion {
  runId: string;
}

/** What a backend offers for the runs its schedules start (optional: a backend without it reports none). */
export interface ScheduledRuns {
  /** The finished runs of schedule `scheduleId` not yet marked as recorded. */
  completed(
    provider: { namespace: string; name: string },
    scheduleId: string,
    wanted: { artifacts: { name: string; path: string }[]; pipelineRootStorage?: string },
  ): Promise<ScheduledCompletion[]>;
  /** Marks the run as recorded: completed() no longer returns it. */
  release(provider: { namespace: string; name: string }, runId: string): Promise<void>;
}

/** Settled records a RunSchedule keeps (newest first); its released runs are never reported again. */
export const keptSettledRecords = 20;

export interface ScheduledPlan {
  /** The records to write (new ones appended, old settled ones beyond the limit dropped); undefined: no change. */
  events?: DeliveryRecord[];
  /** Runs whose completion is recorded (after `events` is written) and may be released. */
  release: string[];
}

const settled = (record: DeliveryRecord) => record.sinks.every((s) => s.delivered || s.failed);

export function planScheduledRuns(
  scheduleUid: string,
  recorded: readonly DeliveryRecord[],
  completions: readonly ScheduledCompletion[],
  sinks: readonly string[],
  now: number,
): ScheduledPlan {
  const known = new Set(recorded.map((record) => record.id));
  const fresh = completions
    .map((completion) => ({ completion, id: completionEventId(scheduleUid, completion.runId) }))
    .filter(({ id }) => !known.has(id))
    .map(({ completion, id }) =>
      newDeliveryRecord(
        {
          id,
          type: runCompletionType,
          runId: completion.runId,
          state: completion.state,
          ...(completion.startedAt ? { startedAt: completion.startedAt } : {}),
          finishedAt: completion.finishedAt ?? new Date(now).toISOString(),
          artifacts: completion.artifacts,
        },
        sinks,
        now,
      ),
    );
  const release = completions.map((c) => c.runId);
  if (!fresh.length) return { release };
  const all = [...recorded, ...fresh];
  const keep = new Set(all.filter(settled).slice(-keptSettledRecords));
  return { events: all.filter((record) => !settled(record) || keep.has(record)), release };
}
