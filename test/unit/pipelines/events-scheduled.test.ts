/**
 * The tracking of the runs a schedule starts (src/pipelines/events/scheduled.ts) for backends
 * without marks (kfp, vertex): the records are the mark and `trackedSince` the window, so across
 * any sequence of polls every run is recorded exactly once; and the list requests that window makes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  keptSettledRecords,
  planScheduledRuns,
  recordedPerPoll,
  type ScheduledCompletion,
  trackedSince,
} from "../../../src/pipelines/events/scheduled.ts";
import { scheduledRunsQuery } from "../../../src/pipelines/kfp/requests.ts";
import { scheduledJobsRequest } from "../../../src/pipelines/vertex/requests.ts";

const uid = "0b5c-schedule-uid";
const t0 = Date.parse("2026-01-01T00:00:00Z");
const at = (second: number) => new Date(t0 + second * 1000).toISOString();
const completion = (runId: string, second: number): ScheduledCompletion => ({
  runId,
  state: "Succeeded",
  finishedAt: at(second),
  artifacts: [],
});
type Records = NonNullable<ReturnType<typeof planScheduledRuns>["events"]>;
const settle = (records: Records): Records =>
  records.map((r) => ({ ...r, sinks: r.sinks.map((s) => ({ ...s, delivered: true })) }));

describe("planScheduledRuns for a backend without marks", () => {
  it("records new completions once, releases only what is recorded, and takes at most recordedPerPoll per poll", () => {
    const first = planScheduledRuns(uid, [], [completion("a", 1)], ["http://sink"], t0);
    expect(first.events?.map((r) => [r.runId, r.finishedAt, r.sinks[0]?.sink])).toEqual([
      ["a", at(1), "http://sink"],
    ]);
    const again = planScheduledRuns(uid, first.events ?? [], [completion("a", 1)], ["http://sink"], t0);
    expect(again).toEqual({ release: ["a"] }); // known: no write

    const many = Array.from({ length: recordedPerPoll + 5 }, (_, i) => completion(`r${i}`, 10 + i));
    const capped = planScheduledRuns(uid, [], many, ["http://sink"], t0);
    expect(capped.events).toHaveLength(recordedPerPoll);
    expect(capped.release).toEqual(many.slice(0, recordedPerPoll).map((c) => c.runId));
  });

  it("keeps the newest settled records by finish time (ties kept), pending ones always; the window starts at the oldest kept", () => {
    const older = settle(
      planScheduledRuns(
        uid,
        [],
        Array.from({ length: keptSettledRecords + 3 }, (_, i) => completion(`s${i}`, 100 + i)),
        ["x"],
        t0,
      ).events ?? [],
    );
    expect(trackedSince(older.slice(0, keptSettledRecords - 1))).toBeUndefined(); // nothing dropped yet
    const pendingOld = planScheduledRuns(uid, older, [completion("late", 50)], ["x"], t0).events ?? [];
    // 23 settled → the 3 oldest dropped; the pending one (finished earliest) is kept
    expect(pendingOld.map((r) => r.runId)).toEqual([...older.slice(3).map((r) => r.runId), "late"]);
    expect(trackedSince(pendingOld)).toBe(at(103)); // the oldest settled kept, not the pending one

    const tied = settle(
      planScheduledRuns(
        uid,
        [],
        Array.from({ length: keptSettledRecords + 2 }, (_, i) => completion(`t${i}`, i < 4 ? 7 : 8 + i)),
        ["x"],
        t0,
      ).events ?? [],
    );
    const kept = planScheduledRuns(uid, tied, [completion("new", 99)], ["x"], t0).events ?? [];
    // the 20th newest finished at second 7 with three others: all four kept
    expect(kept.filter((r) => r.finishedAt === at(7))).toHaveLength(4);
  });

  it("across any sequence of polls and deliveries, every run is recorded exactly once (property)", () => {
    const runs = fc.array(fc.record({ finish: fc.integer({ min: 0, max: 400 }), lag: fc.nat(3) }), {
      minLength: 1,
      maxLength: 120,
    });
    const steps = fc.array(fc.record({ advance: fc.integer({ min: 1, max: 40 }), deliver: fc.boolean() }), {
      minLength: 1,
      maxLength: 40,
    });
    fc.assert(
      fc.property(runs, steps, (backend, polls) => {
        let records: Records = [];
        const recordedTimes = new Map<string, number>();
        let clock = 0;
        const poll = () => {
          const since = trackedSince(records);
          // the backend: what has finished and is visible (finish + lag ≤ now), from `since`, oldest first
          const listed = backend
            .map((run, i) => ({ ...run, runId: `run-${i}` }))
            .filter((run) => run.finish + run.lag <= clock)
            .filter((run) => since === undefined || at(run.finish) >= since)
            .sort((a, b) => a.finish - b.finish)
            .map((run) => completion(run.runId, run.finish));
          const plan = planScheduledRuns(uid, records, listed, ["sink"], t0 + clock * 1000);
          const before = new Set(records.map((r) => r.id));
          for (const record of plan.events ?? [])
            if (!before.has(record.id))
              recordedTimes.set(record.runId, (recordedTimes.get(record.runId) ?? 0) + 1);
          records = plan.events ?? records;
        };
        for (const step of polls) {
          clock += step.advance;
          poll();
          if (step.deliver) records = settle(records);
        }
        // drain: time passes beyond every run, deliveries succeed
        for (let i = 0; i < 10; i += 1) {
          clock += 500;
          poll();
          records = settle(records);
        }
        // lag ≤ 3 s and every poll lists all it sees: nothing appears behind 20 later-finished records
        expect([...recordedTimes.values()].every((n) => n === 1)).toBe(true);
        expect(recordedTimes.size).toBe(backend.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe("the list requests of that window", () => {
  it("kfp: ListRuns filtered by recurring_run_id and finished_at (KFP's run field names), oldest first, in the namespace", () => {
    const query = scheduledRunsQuery("rr-1", at(5), { namespace: "team" } as never, "100");
    expect(JSON.parse(query.filter ?? "")).toEqual({
      predicates: [
        { key: "recurring_run_id", operation: "EQUALS", string_value: "rr-1" },
        { key: "finished_at", operation: "GREATER_THAN_EQUALS", timestamp_value: at(5) },
      ],
    });
    expect(query).toMatchObject({
      sort_by: "finished_at",
      page_size: "100",
      namespace: "team",
      page_token: "100",
    });
    const first = scheduledRunsQuery("rr-1", undefined, {} as never);
    expect(JSON.parse(first.filter ?? "").predicates[1]).toEqual({
      key: "finished_at",
      operation: "GREATER_THAN",
      timestamp_value: "1970-01-01T00:00:00Z",
    });
    expect(first).not.toHaveProperty("namespace");
  });

  it("vertex: ListPipelineJobs filtered by schedule_name and end_time (AIP-160), oldest first", () => {
    const schedule = "projects/p/locations/l/schedules/123";
    expect(scheduledJobsRequest("projects/p/locations/l", schedule, at(5))).toEqual({
      parent: "projects/p/locations/l",
      filter: `schedule_name="${schedule}" AND end_time>="${at(5)}"`,
      orderBy: "end_time",
      pageSize: 100,
    });
    expect(scheduledJobsRequest("projects/p/locations/l", schedule, undefined, "2").filter).toBe(
      `schedule_name="${schedule}" AND end_time>"1970-01-01T00:00:00Z"`,
    );
  });
});
