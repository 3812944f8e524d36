import { describe, expect, it } from "vitest";
import { type PlatformLike, platformChanges, platformView } from "../../../src/server/platform/view.ts";

const platform = (status: PlatformLike["status"], version = "0.2.0"): PlatformLike => ({
  metadata: { name: "slipway", namespace: "ns", generation: 2 },
  spec: { version, stopped: false },
  status,
});
const component = (name: string, phase: string, version = "0.1.0") => ({
  name,
  phase,
  ready: "1/1",
  version,
});

describe("platformView", () => {
  it("flattens spec and status, Unknown before any status", () => {
    expect(platformView(platform(undefined))).toEqual({
      name: "slipway",
      namespace: "ns",
      phase: "Unknown",
      desiredVersion: "0.2.0",
      stopped: false,
      generation: 2,
      components: [],
      conditions: [],
    });
  });
});

describe("platformChanges", () => {
  const before = platformView(
    platform({ phase: "Running", version: "0.1.0", components: [component("postgres", "Ready")] }),
  );
  it("reports everything for the first view", () => {
    expect(platformChanges(undefined, before).map((change) => change.event)).toEqual(["phase", "component"]);
  });
  it("reports nothing when nothing a person follows changed", () => {
    expect(platformChanges(before, platformView(platform({ ...before, observedGeneration: 5 })))).toEqual([]);
  });
  it("reports a phase change and the one component that changed", () => {
    const next = platformView(
      platform({
        phase: "Updating",
        version: "0.1.0",
        components: [component("postgres", "Updating"), component("mlflow", "Ready")],
      }),
    );
    expect(platformChanges(before, next)).toEqual([
      { event: "phase", data: { phase: "Updating", version: "0.1.0", desiredVersion: "0.2.0" } },
      { event: "component", data: component("postgres", "Updating") },
      { event: "component", data: component("mlflow", "Ready") },
    ]);
  });
  it("reports a settling phase after the component changes that led to it", () => {
    const updating = platformView(
      platform({ phase: "Updating", version: "0.1.0", components: [component("postgres", "Updating")] }),
    );
    const done = platformView(
      platform({ phase: "Running", version: "0.2.0", components: [component("postgres", "Ready", "0.2.0")] }),
    );
    expect(platformChanges(updating, done).map((change) => change.event)).toEqual(["component", "phase"]);
  });
  it("reports a component that left", () => {
    const next = platformView(platform({ phase: "Running", version: "0.1.0", components: [] }));
    expect(platformChanges(before, next)).toEqual([
      { event: "component", data: { ...component("postgres", "Ready"), removed: true } },
    ]);
  });
});
