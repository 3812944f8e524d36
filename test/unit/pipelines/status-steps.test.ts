import { describe, expect, it } from "vitest";
import type { SyncCommand } from "../../../src/pipelines/sync/plan.ts";
import { stepsIntoWrite, withStepStatus } from "../../../src/pipelines/sync/status-steps.ts";

const delivered = [{ id: "a", at: "2026-12-04T00:00:00Z", sinks: [] }];

describe("withStepStatus: the status steps' parts in the plan's one write", () => {
  it("sets each step's fields over the plan's, a later step's winning, and keeps the rest", () => {
    const plan = { state: "Succeeded" as const, version: "v1", events: [] };
    const merged = withStepStatus(
      plan,
      [{ status: { events: [] } }, { status: { events: delivered as never } }],
      3,
    );
    expect(merged).toEqual({ state: "Succeeded", version: "v1", events: delivered });
  });

  it("sets a step's condition among the plan's, for the resource's generation", () => {
    const synchronized = {
      type: "Synchronized",
      status: "True" as const,
      reason: "Succeeded",
      message: "in the backend",
      lastTransitionTime: "2026-12-04T00:00:00Z",
      observedGeneration: 3,
    };
    const merged = withStepStatus(
      { conditions: [synchronized] },
      [{ condition: { type: "EventsDelivered", status: "False", reason: "SinkFailing", message: "sink x" } }],
      3,
    );
    expect(merged.conditions?.map((c) => [c.type, c.status, c.observedGeneration])).toEqual([
      ["Synchronized", "True", 3],
      ["EventsDelivered", "False", 3],
    ]);
  });

  it("is the plan's status untouched without parts", () => {
    const plan = { state: "Failed" as const };
    expect(withStepStatus(plan, [], 1)).toBe(plan);
  });
});

describe("stepsIntoWrite: the parts in the first status write of a reconcile's plans", () => {
  const marked = async () => {};
  const created = { type: "Normal" as const, reason: "Succeeded", message: "created" };
  const failing = { type: "Warning" as const, reason: "DeliveryFailed", message: "sink x" };
  const parts = [
    { status: { events: delivered as never }, event: failing, requeueAfterMs: 2_000, afterWrite: marked },
    { requeueAfterMs: 0 },
  ];
  const write: SyncCommand<never> = { type: "SetStatus", status: { state: "Succeeded" }, events: [created] };

  it("merges the parts into the write, then their work after it and their requeues; once per reconcile", () => {
    const stepped = stepsIntoWrite<never>(parts, 2);
    const plan: SyncCommand<never>[] = [
      { type: "AddFinalizer", finalizer: "f" },
      write,
      { type: "Requeue", afterMs: 30_000 },
    ];
    expect(stepped(plan)).toEqual([
      { type: "AddFinalizer", finalizer: "f" },
      {
        type: "SetStatus",
        status: { state: "Succeeded", events: delivered },
        events: [created, failing],
        requeueIfWrittenMs: 50,
      },
      { type: "AfterStepWrite", run: marked },
      { type: "Requeue", afterMs: 2_000 },
      { type: "Requeue", afterMs: 30_000 },
    ]);
    // a continuation's write of the same reconcile is left as it is
    expect(stepped([write])).toEqual([write]);
  });

  it("a part that sets no status asks for no requeue after the write; no parts change nothing", () => {
    expect(stepsIntoWrite<never>([{ event: failing }], 2)([write])).toEqual([
      { type: "SetStatus", status: { state: "Succeeded" }, events: [created, failing] },
    ]);
    expect(stepsIntoWrite<never>([], 2)([write])).toEqual([write]);
  });
});
