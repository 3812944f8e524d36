import type { V1Job } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import type { ImageBuildStatus } from "../../../src/apis/builds/imagebuild.ts";
import { jobCleanupFinalizer } from "../../../src/builds/build-namespace.ts";
import type { Decision } from "../../../src/builds/decide.ts";
import { cleanupPlan } from "../../../src/builds/job-cleanup.ts";
import { type BuildCommand, type BuildPlanContext, planBuild } from "../../../src/builds/plan.ts";
import { types } from "../../../src/builds/resource-types.ts";

const condition = {
  type: "Succeeded",
  status: "Unknown",
  reason: "Building",
  message: "building with token s3cr3t",
  lastTransitionTime: "2026-01-01T00:00:00Z",
} as const;
const building: ImageBuildStatus = { phase: "Building", message: condition.message, conditions: [condition] };

function context(runElsewhere = false): BuildPlanContext & { counted: ImageBuildStatus[] } {
  const counted: ImageBuildStatus[] = [];
  return {
    runElsewhere,
    redact: (text) => text.replaceAll("s3cr3t", "[redacted]"),
    countFinished: (status) => counted.push(status),
    counted,
  };
}

/** The commands with what can be compared (afterWrite is run apart). */
const shapes = (commands: BuildCommand[]) =>
  commands.map((command) => {
    if (command.type !== "SetStatus") return command;
    const { afterWrite, ...rest } = command;
    return { ...rest, afterWrite: typeof afterWrite };
  });

const redactedBuilding: ImageBuildStatus = {
  ...building,
  message: "building with token [redacted]",
  conditions: [{ ...condition, message: "building with token [redacted]" }],
};

describe("planBuild", () => {
  const start: Decision & { kind: "act" } = {
    kind: "act",
    startJob: true,
    status: building,
    event: { type: "Normal", reason: "BuildStarted", message: "s3cr3t in the log" },
    requeueAfterMs: 3_000,
  };

  it("a run in another namespace: the finalizer first, the redacted status with its Event, the start, the requeue", () => {
    const plan = context(true);
    expect(shapes(planBuild(start, plan))).toEqual([
      { type: "AddFinalizer", finalizer: jobCleanupFinalizer },
      {
        type: "SetStatus",
        status: redactedBuilding,
        events: [{ type: "Normal", reason: "BuildStarted", message: "[redacted] in the log" }],
        afterWrite: "function",
      },
      { type: "StartRun" },
      { type: "Requeue", afterMs: 3_000 },
    ]);
  });

  it("a run in the build's own namespace has no finalizer", () => {
    expect(planBuild(start, context(false)).map((command) => command.type)).toEqual([
      "SetStatus",
      "StartRun",
      "Requeue",
    ]);
  });

  it("the finalizer guards a start only", () => {
    const restart: Decision & { kind: "act" } = {
      kind: "act",
      deleteJob: true,
      status: building,
      requeueAfterMs: 1_000,
    };
    expect(shapes(planBuild(restart, context(true)))).toEqual([
      { type: "SetStatus", status: redactedBuilding, afterWrite: "function" },
      { type: "StopRun" },
      { type: "Requeue", afterMs: 1_000 },
    ]);
  });

  it("the status write counts the redacted status once written", async () => {
    const plan = context();
    const [write] = planBuild({ kind: "act", status: building }, plan);
    if (write?.type !== "SetStatus") throw new Error("expected a status write");
    expect(plan.counted).toEqual([]);
    await write.afterWrite?.();
    expect(plan.counted).toEqual([redactedBuilding]);
  });

  it("nothing to do is no command", () => {
    expect(planBuild({ kind: "act" }, context(true))).toEqual([]);
  });
});

describe("cleanupPlan", () => {
  const job = (namespace: string, name: string): V1Job => ({ metadata: { namespace, name } });
  const { job: jobType, secret: secretType } = types;

  const deletions = (name: string) => [
    {
      type: "Delete",
      resource: jobType,
      key: { namespace: "builds", name },
      propagationPolicy: "Background",
    },
    { type: "Delete", resource: secretType, key: { namespace: "builds", name: `${name}-args` } },
    { type: "Delete", resource: secretType, key: { namespace: "builds", name: `${name}-registry` } },
  ];

  it("each Job with its two Secrets, then the finalizer", () => {
    expect(cleanupPlan([job("builds", "b-1"), job("builds", "b-2")])).toEqual([
      ...deletions("b-1"),
      ...deletions("b-2"),
      { type: "RemoveFinalizer", finalizer: jobCleanupFinalizer },
    ]);
  });

  it("no Job: the finalizer only", () => {
    expect(cleanupPlan([])).toEqual([{ type: "RemoveFinalizer", finalizer: jobCleanupFinalizer }]);
  });
});
