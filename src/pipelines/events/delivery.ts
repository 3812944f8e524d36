/**
 * The delivery state machine of run-completion events (pure). A completion is recorded with one entry
 * per sink (`status.events[].sinks[]`), in the same status write as the completion itself, so it
 * cannot be lost; each entry is then attempted until the sink acknowledges it (delivered, never sent
 * again) or it has failed `maxAttempts` times (failed: reported, and no longer attempted). Failed
 * attempts are retried after a bounded, doubling delay. Every sink has its own entry: one that fails
 * holds back no other.
 */
import type { ConditionInput } from "../../kube/conditions.ts";
import { exponentialDelay } from "../../lib/backoff.ts";
import type { RunCompletion } from "../backend.ts";
import { completionEventId, type DeliveryRecord, runCompletionType } from "./event.ts";

export type SinkDelivery = DeliveryRecord["sinks"][number];

export interface RetryPolicy {
  /** Delay after the first failed attempt; doubles with each further one. */
  baseMs: number;
  /** The longest delay between two attempts. */
  maxMs: number;
  /** Attempts before a sink is given up on (reported in the EventsDelivered condition). */
  maxAttempts: number;
}

export const defaultRetry: RetryPolicy = { baseMs: 1_000, maxMs: 300_000, maxAttempts: 12 };

export type AttemptOutcome = { ok: true } | { ok: false; error: string; permanent?: boolean };

const iso = (ms: number) => new Date(ms).toISOString();

/** The completion to record, with every sink not yet attempted. */
export function newDeliveryRecord(
  completion: Omit<DeliveryRecord, "sinks" | "recordedAt">,
  sinks: readonly string[],
  now: number,
): DeliveryRecord {
  return {
    ...completion,
    recordedAt: iso(now),
    sinks: sinks.map((sink) => ({ sink, delivered: false, attempts: 0 })),
  };
}

/**
 * The record of run `runId`'s completion, owned by the resource of uid `ownerUid` (a Run or a
 * RunSchedule): its id is stable per owner and run, and a completion without a finish time is taken
 * as finished `now`.
 */
export function completionRecord(
  ownerUid: string,
  runId: string,
  completion: RunCompletion,
  sinks: readonly string[],
  now: number,
): DeliveryRecord {
  return newDeliveryRecord(
    {
      id: completionEventId(ownerUid, runId),
      type: runCompletionType,
      runId,
      state: completion.state,
      ...(completion.startedAt ? { startedAt: completion.startedAt } : {}),
      finishedAt: completion.finishedAt ?? iso(now),
      artifacts: completion.artifacts,
    },
    sinks,
    now,
  );
}

/** Delay before attempt `attempts + 1` after `attempts` failures: base, doubling, at most max. */
export function retryDelayMs(policy: RetryPolicy, attempts: number): number {
  return exponentialDelay(policy, Math.max(0, attempts - 1));
}

const open = (delivery: SinkDelivery) => !delivery.delivered && !delivery.failed;

/** Whether an entry is to be attempted at `now`. */
export function isDue(delivery: SinkDelivery, now: number): boolean {
  return open(delivery) && (delivery.retryAt === undefined || Date.parse(delivery.retryAt) <= now);
}

/** The entry after one attempt with `outcome`. */
export function afterAttempt(
  delivery: SinkDelivery,
  outcome: AttemptOutcome,
  now: number,
  policy: RetryPolicy,
): SinkDelivery {
  const attempts = delivery.attempts + 1;
  if (outcome.ok) return { sink: delivery.sink, delivered: true, attempts, deliveredAt: iso(now) };
  const base = { sink: delivery.sink, delivered: false, attempts, lastError: outcome.error.slice(0, 1024) };
  if (outcome.permanent || attempts >= policy.maxAttempts) return { ...base, failed: true };
  return { ...base, retryAt: iso(now + retryDelayMs(policy, attempts)) };
}

/**
 * Of the recorded entry and the one this process last wrote (a cache may still hold an older copy),
 * the later: delivered or failed wins, then the one with more attempts.
 */
export function later(recorded: SinkDelivery, remembered: SinkDelivery | undefined): SinkDelivery {
  if (!remembered || !open(recorded)) return recorded;
  if (!open(remembered)) return remembered;
  return remembered.attempts > recorded.attempts ? remembered : recorded;
}

/** Every sink delivered or given up on: nothing left to send (a Run may then expire). */
export function allSettled(records: readonly DeliveryRecord[] | undefined): boolean {
  return (records ?? []).every((record) => record.sinks.every((delivery) => !open(delivery)));
}

/** Milliseconds until the earliest pending retry; undefined when none is pending. */
export function nextRetryInMs(records: readonly DeliveryRecord[], now: number): number | undefined {
  const due = records
    .flatMap((record) => record.sinks)
    .filter(open)
    .map((delivery) => (delivery.retryAt ? Date.parse(delivery.retryAt) - now : 0));
  return due.length ? Math.max(0, Math.min(...due)) : undefined;
}

export const eventsConditionType = "EventsDelivered";

const eventsConditionOf = (
  status: ConditionInput["status"],
  reason: string,
  message: string,
): ConditionInput => ({ type: eventsConditionType, status, reason, message });

/** The EventsDelivered condition: False while a sink was given up on, Unknown while one is retried. */
export function eventsCondition(records: readonly DeliveryRecord[]): ConditionInput | undefined {
  const entries = records.flatMap((record) => record.sinks.map((delivery) => ({ record, delivery })));
  if (!entries.length) return undefined;
  const failed = entries.find(({ delivery }) => delivery.failed);
  if (failed) {
    const { delivery, record } = failed;
    return eventsConditionOf(
      "False",
      "SinkFailed",
      `event ${record.id} to ${delivery.sink}: gave up after ${delivery.attempts} attempt(s): ${delivery.lastError ?? "failed"}`,
    );
  }
  const retrying = entries.find(({ delivery }) => open(delivery) && delivery.attempts > 0);
  if (retrying) {
    const { delivery, record } = retrying;
    return eventsConditionOf(
      "Unknown",
      "Retrying",
      `event ${record.id} to ${delivery.sink}: attempt ${delivery.attempts} failed: ${delivery.lastError ?? ""}; retrying at ${delivery.retryAt}`,
    );
  }
  const pending = entries.filter(({ delivery }) => open(delivery)).length;
  if (pending) return eventsConditionOf("Unknown", "Pending", `${pending} delivery(ies) pending`);
  const sinks = new Set(entries.map(({ delivery }) => delivery.sink)).size;
  return eventsConditionOf("True", "Delivered", `${records.length} event(s) delivered to ${sinks} sink(s)`);
}
