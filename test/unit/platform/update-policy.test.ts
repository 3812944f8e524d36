import { describe, expect, it } from "vitest";
import type { PlatformResource } from "../../../src/apis/platform/platform.ts";
import { gateNameProblem } from "../../../src/apis/platform/schemas.ts";
import { updateStopped } from "../../../src/cli/platform/follow.ts";
import {
  activeRollback,
  gatedMessage,
  pendingGates,
  rollbackDecision,
  rollbackMessage,
} from "../../../src/platform/update-policy.ts";
import {
  acknowledgeGates,
  checkUpdate,
  type ReleaseCatalog,
  requestedVersion,
} from "../../../src/platform/version-change.ts";

const migration = { name: "db-migration", description: "the database schema moves to v3" };
const breaking = { name: "api-v2", description: "the REST API drops /v1" };
const gated = { version: "0.3.0", gates: [migration, breaking] };

describe("pendingGates", () => {
  it("an update waits for every gate of its release not acknowledged", () => {
    expect(pendingGates("0.2.0", gated)).toEqual([migration, breaking]);
    expect(pendingGates("0.2.0", gated, ["api-v2"])).toEqual([migration]);
    expect(pendingGates("0.2.0", gated, ["api-v2", "db-migration"])).toEqual([]);
  });
  it("an install and the running release wait for nothing; a release without gates neither", () => {
    expect(pendingGates(undefined, gated)).toEqual([]);
    expect(pendingGates("v0.3.0", gated)).toEqual([]);
    expect(pendingGates("0.2.0", { version: "0.3.0" })).toEqual([]);
  });
  it("the message names each gate, what it means and how to acknowledge it", () => {
    expect(gatedMessage("0.3.0", [migration])).toBe(
      "the update to 0.3.0 waits for acknowledgement of db-migration (the database schema moves to v3): run slipway update --version 0.3.0 --acknowledge db-migration, or add db-migration to spec.acknowledgedGates",
    );
  });
});

describe("rollbackDecision", () => {
  const failing = {
    policy: "Rollback" as const,
    targetVersion: "0.2.0",
    runningVersion: "0.1.0",
    failures: [
      { name: "mlflow", message: "pod slipway-mlflow-1: CrashLoopBackOff" },
      { name: "web", message: "pod slipway-web-1: ErrImagePull" },
    ],
  };
  it("rolls a failed version update back to the last Running release, naming the first failed component", () => {
    expect(rollbackDecision(failing)).toEqual({
      from: "0.2.0",
      to: "0.1.0",
      component: "mlflow",
      reason: "pod slipway-mlflow-1: CrashLoopBackOff",
    });
  });
  it("halts under Halt (or no policy), with nothing failed, on an install, or at the running release", () => {
    expect(rollbackDecision({ ...failing, policy: "Halt" })).toBeUndefined();
    expect(rollbackDecision({ ...failing, policy: undefined })).toBeUndefined();
    expect(rollbackDecision({ ...failing, failures: [] })).toBeUndefined();
    expect(rollbackDecision({ ...failing, runningVersion: undefined })).toBeUndefined();
    expect(rollbackDecision({ ...failing, runningVersion: "v0.2.0" })).toBeUndefined();
  });
  it("a rollback holds while spec.version names the failed release; another version clears it", () => {
    const record = rollbackDecision(failing);
    expect(activeRollback(record, "v0.2.0")).toEqual(record);
    expect(activeRollback(record, "0.3.0")).toBeUndefined();
    expect(activeRollback(undefined, "0.2.0")).toBeUndefined();
    if (!record) throw new Error("no rollback");
    expect(rollbackMessage(record)).toBe(
      "rolled back from 0.2.0 to 0.1.0: mlflow failed: pod slipway-mlflow-1: CrashLoopBackOff",
    );
  });
});

describe("gateNameProblem", () => {
  it("takes a DNS label and names the field and the rule otherwise", () => {
    expect(gateNameProblem("--acknowledge", "db-migration")).toBeUndefined();
    expect(gateNameProblem("--acknowledge", "DB_Migration")).toBe(
      "--acknowledge must be a gate name: lowercase letters, digits and '-', at most 63 characters (e.g. db-migration)",
    );
    expect(gateNameProblem("--acknowledge", "a".repeat(64))).toBeDefined();
    expect(gateNameProblem("--acknowledge", "-x")).toBeDefined();
  });
});

describe("acknowledgeGates (slipway update --acknowledge, the REST body's acknowledge)", () => {
  const versions = ["0.1.0", "0.3.0"];
  const catalog: ReleaseCatalog = {
    versions,
    find: (version) => versions.find((known) => known === version),
    compare: (a, b) => a.localeCompare(b, "en", { numeric: true }),
    gates: (version) => (version === "0.3.0" ? gated.gates : []),
  };
  it("adds the release's gates to those acknowledged before, once each", () => {
    expect(acknowledgeGates("0.3.0", ["db-migration"], ["old-gate"], "--acknowledge", catalog)).toEqual({
      acknowledged: ["old-gate", "db-migration"],
    });
    expect(acknowledgeGates("0.3.0", ["api-v2", "api-v2"], ["api-v2"], "--acknowledge", catalog)).toEqual({
      acknowledged: ["api-v2"],
    });
  });
  it("refuses a gate the release does not declare, or a name that is no gate name, naming the field", () => {
    expect(acknowledgeGates("0.3.0", ["db-migrate"], [], "body.acknowledge", catalog)).toEqual({
      problem:
        "body.acknowledge db-migrate: release 0.3.0 declares no such gate (its gates: db-migration, api-v2)",
    });
    expect(acknowledgeGates("0.1.0", ["db-migration"], [], "--acknowledge", catalog)).toEqual({
      problem: "--acknowledge db-migration: release 0.1.0 declares no such gate (its gates: none)",
    });
    expect(acknowledgeGates("0.3.0", ["Db"], [], "--acknowledge", catalog)).toEqual({
      problem: gateNameProblem("--acknowledge", "Db"),
    });
  });
});

describe("updateStopped (what ends slipway update's wait with exit 1)", () => {
  const rollback = { from: "0.2.0", to: "0.1.0", component: "web", reason: "pod w: CrashLoopBackOff" };
  const platform = (status: NonNullable<PlatformResource["status"]>) => ({
    metadata: { name: "slipway" },
    status,
  });
  it("a rollback, once the platform runs the old release again, naming the component and its reason", () => {
    expect(
      updateStopped(platform({ phase: "Updating", version: "0.1.0", rollback }), { version: "0.2.0" }),
    ).toBeUndefined();
    expect(
      updateStopped(platform({ phase: "Running", version: "0.1.0", rollback }), { version: "0.2.0" }),
    ).toBe("platform slipway rolled back to 0.1.0: the update to 0.2.0 failed: web: pod w: CrashLoopBackOff");
    // an update to another release than the one rolled back is followed on
    expect(
      updateStopped(platform({ phase: "Running", version: "0.1.0", rollback }), { version: "0.3.0" }),
    ).toBeUndefined();
  });
  it("an update waiting for its gates, with the condition's message", () => {
    const condition = {
      type: "UpdateGated",
      status: "True" as const,
      reason: "AwaitingAcknowledgement",
      message: gatedMessage("0.3.0", [migration]),
      lastTransitionTime: "2026-12-04T00:00:00Z",
    };
    expect(
      updateStopped(platform({ phase: "Running", version: "0.1.0", conditions: [condition] }), {
        version: "0.3.0",
      }),
    ).toBe(`platform slipway did not update: ${condition.message}`);
    expect(
      updateStopped(platform({ phase: "Running", version: "0.1.0", conditions: [condition] }), {}),
    ).toBeUndefined();
  });
});

describe("requestedVersion (what checkUpdate counts as asked for)", () => {
  const rollback = { from: "0.2.0", to: "0.1.0", component: "web", reason: "x" };
  it("is spec.version, unless its update was rolled back: going back to the running release is then no downgrade", () => {
    expect(requestedVersion({ spec: { version: "0.2.0" } })).toBe("0.2.0");
    expect(requestedVersion({ spec: { version: "0.2.0" }, status: { rollback } })).toBeUndefined();
    expect(requestedVersion({ spec: { version: "0.3.0" }, status: { rollback } })).toBe("0.3.0");
    const rolledBack = { spec: { version: "0.2.0" }, status: { version: "0.1.0", rollback } };
    expect(
      checkUpdate(rolledBack.status.version, requestedVersion(rolledBack), "0.1.0", { force: false }),
    ).toEqual({ action: "update", from: "0.1.0", to: "0.1.0" });
    expect(checkUpdate("0.1.0", "0.2.0", "0.1.0", { force: false })).toMatchObject({ reason: "downgrade" });
  });
});
