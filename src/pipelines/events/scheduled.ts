/**
 * Runs a schedule started in the backend (Argo CronWorkflow's Workflows, KFP recurring runs, Vertex
 * schedules) are tracked: the RunSchedule's reconcile asks the backend for its finished runs not yet
 * recorded, records their completions in the RunSchedule's `status.events` (stable ids: recording
 * one twice is a no-op), and only after that write marks them in the backend ("release"), so a crash
 * in between records nothing twice and loses nothing. A backend that cannot mark its runs (KFP and
 * Vertex keep every run, with nothing a client may write on it) lists only the runs finished since
 * the oldest record kept (`trackedSince`): the records themselves are the mark. This file is the
 * pure part.
 */
import type { ProviderAt, RunCompletion } from "../backend.ts";
import { completionRecord } from "./delivery.ts";
import { completionEventId, type DeliveryRecord } from "./event.ts";

/** A finished run of a schedule, still held by the backend. */
export interface ScheduledCompletion extends RunCompletion {
  runId: string;
}

/** What a backend offers for the runs its schedules start (optional: a backend without it reports none). */
export interface ScheduledRuns {
  /**
   * The finished runs of schedule `scheduleId` not yet marked as recorded; a backend without
   * `release` returns those that finished at `since` or later (every finished one when undefined).
   */
  completed(
    provider: ProviderAt,
    scheduleId: string,
    wanted: { artifacts: { name: string; path: string }[]; pipelineRootStorage?: string },
    since: string | undefined,
  ): Promise<ScheduledCompletion[]>;
  /** Marks the run as recorded: completed() no longer returns it. */
  release?(provider: ProviderAt, runId: string): Promise<void>;
}

/**
 * Settled records a RunSchedule keeps: the newest by finish time (and every one that finished at
 * the same time as the last of them); pending ones always. A run that finished before every kept
 * record is never reported again.
 */
export const keptSettledRecords = 20;

/** At most this many completions are recorded per poll (oldest first: the backends list in finish order); the rest next time. */
export const recordedPerPoll = 100;

export interface ScheduledPlan {
  /** The records to write (new ones appended, old settled ones beyond the limit dropped); undefined: no change. */
  events?: DeliveryRecord[];
  /** Runs whose completion is recorded (after `events` is written) and may be released. */
  release: string[];
}

const settled = (record: DeliveryRecord) => record.sinks.every((s) => s.delivered || s.failed);
const finishedAt = (record: DeliveryRecord) => Date.parse(record.finishedAt ?? record.recordedAt);

/** The records without the settled ones that finished before the newest `keptSettledRecords`. */
function trimmed(records: DeliveryRecord[]): DeliveryRecord[] {
  const newestFirst = records.filter(settled).sort((a, b) => finishedAt(b) - finishedAt(a));
  const last = newestFirst[keptSettledRecords - 1];
  if (!last) return records;
  return records.filter((record) => !settled(record) || finishedAt(record) >= finishedAt(last));
}

/**
 * Where a backend without marks starts listing: once records have been dropped (trimmed keeps at
 * least `keptSettledRecords` settled ones from then on), the finish time of the oldest settled
 * record kept — every dropped one finished before it, and a run reported again at that instant or
 * later is known by its id. Before that, nothing was dropped: undefined, every finished run.
 */
export function trackedSince(records: readonly DeliveryRecord[]): string | undefined {
  const settledOnes = records.filter(settled);
  if (settledOnes.length < keptSettledRecords) return undefined;
  let oldest = settledOnes[0] as DeliveryRecord;
  for (const record of settledOnes) if (finishedAt(record) < finishedAt(oldest)) oldest = record;
  return oldest.finishedAt ?? oldest.recordedAt;
}

export function planScheduledRuns(
  scheduleUid: string,
  recorded: readonly DeliveryRecord[],
  completions: readonly ScheduledCompletion[],
  sinks: readonly string[],
  now: number,
): ScheduledPlan {
  const known = new Set(recorded.map((record) => record.id));
  const fresh = completions
    .filter((completion) => !known.has(completionEventId(scheduleUid, completion.runId)))
    .slice(0, recordedPerPoll)
    .map((completion) => completionRecord(scheduleUid, completion.runId, completion, sinks, now));
  const recordedNow = new Set(fresh.map((record) => record.runId));
  const release = completions
    .filter((c) => recordedNow.has(c.runId) || known.has(completionEventId(scheduleUid, c.runId)))
    .map((c) => c.runId);
  if (!fresh.length) return { release };
  return { events: trimmed([...recorded, ...fresh]), release };
}
