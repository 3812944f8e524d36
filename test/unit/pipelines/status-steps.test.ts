import { describe, expect, it } from "vitest";
import { withStepStatus } from "../../../src/pipelines/sync/status-steps.ts";

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
