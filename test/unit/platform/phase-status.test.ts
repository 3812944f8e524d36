import { describe, expect, it } from "vitest";
import type { Condition } from "../../../src/kube/conditions.ts";
import {
  type PhaseReport,
  phaseChangeEvent,
  phaseConditions,
  phaseStatus,
} from "../../../src/platform/phase-status.ts";

const updating: PhaseReport = {
  phase: "Updating",
  reason: "Updating",
  message: "2 of 3 components updated",
  ready: false,
  degraded: false,
  progressing: true,
};

const strip = (conditions: Condition[]) => conditions.map(({ lastTransitionTime: _, ...rest }) => rest);

describe("phaseConditions", () => {
  it("sets Ready, Progressing and Degraded in that order, each with the phase's reason while it holds", () => {
    expect(strip(phaseConditions(undefined, updating, 4))).toEqual([
      {
        type: "Ready",
        status: "False",
        reason: "Updating",
        message: updating.message,
        observedGeneration: 4,
      },
      {
        type: "Progressing",
        status: "True",
        reason: "Updating",
        message: updating.message,
        observedGeneration: 4,
      },
      { type: "Degraded", status: "False", reason: "AsExpected", message: "", observedGeneration: 4 },
    ]);
  });

  it("has no Progressing condition for a kind that does not track it", () => {
    const failed: PhaseReport = {
      phase: "Failed",
      reason: "Failed",
      message: "boom",
      ready: false,
      degraded: true,
    };
    expect(strip(phaseConditions(undefined, failed, 1))).toEqual([
      { type: "Ready", status: "False", reason: "Failed", message: "boom", observedGeneration: 1 },
      { type: "Degraded", status: "True", reason: "Failed", message: "boom", observedGeneration: 1 },
    ]);
  });

  it("keeps other conditions and a transition time whose status did not change", () => {
    const kept: Condition = {
      type: "Other",
      status: "True",
      reason: "R",
      message: "",
      lastTransitionTime: "t0",
    };
    const ready: Condition = {
      type: "Ready",
      status: "False",
      reason: "X",
      message: "",
      lastTransitionTime: "t1",
    };
    const conditions = phaseConditions([kept, ready], updating, 2);
    expect(conditions[0]).toBe(kept);
    expect(conditions[1]?.lastTransitionTime).toBe("t1");
  });
});

describe("phaseChangeEvent", () => {
  it("reports a change of phase, as a Warning when degraded", () => {
    expect(phaseChangeEvent("Running", updating)).toEqual({
      type: "Normal",
      reason: "Updating",
      message: updating.message,
    });
    expect(phaseChangeEvent("Running", { ...updating, phase: "Degraded", degraded: true })?.type).toBe(
      "Warning",
    );
  });

  it("reports nothing when the phase is the same", () => {
    expect(phaseChangeEvent("Updating", updating)).toBeUndefined();
  });
});

describe("phaseStatus", () => {
  it("writes the phase, message, generation and conditions beside the kind's own fields, with the Event", () => {
    const object = { metadata: { generation: 7 }, status: { phase: "Running", conditions: [] } };
    const { status, event } = phaseStatus(object, updating, { ready: "1/3" });
    expect({ ...status, conditions: strip(status.conditions) }).toEqual({
      phase: "Updating",
      ready: "1/3",
      message: updating.message,
      observedGeneration: 7,
      conditions: strip(phaseConditions(undefined, updating, 7)),
    });
    expect(event).toEqual({ type: "Normal", reason: "Updating", message: updating.message });
  });
});
