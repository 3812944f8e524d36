import { describe, expect, it } from "vitest";
import type { Run } from "../../../src/apis/pipelines/run.ts";
import type { RunConfiguration } from "../../../src/apis/pipelines/run-configuration.ts";
import type { RunSchedule } from "../../../src/apis/pipelines/run-schedule.ts";
import { runConfigurationStatus } from "../../../src/pipelines/controllers/run-configuration.ts";
import { planRunConfiguration, scheduleName } from "../../../src/pipelines/run-configuration-plan.ts";

function configuration(
  triggers: RunConfiguration["spec"]["triggers"],
  status?: RunConfiguration["status"],
): RunConfiguration {
  return {
    apiVersion: "pipelines.slipway.dev/v1beta1",
    kind: "RunConfiguration",
    metadata: { name: "rc", namespace: "team" },
    spec: { provider: "argo", run: { pipeline: "train" }, triggers },
    ...(status ? { status } : {}),
  };
}

const observed = { sourceRuns: {}, runs: [], schedules: [] };

const run = (
  name: string,
  state: "Succeeded" | "Failed",
  at: string,
  artifacts = [{ name: "m", location: name }],
): Run => ({
  apiVersion: "pipelines.slipway.dev/v1beta1",
  kind: "Run",
  metadata: { name, namespace: "team" },
  spec: { provider: "argo", pipeline: "train" },
  status: { completionState: state, completedAt: at, artifacts },
});

describe("planRunConfiguration", () => {
  it("wants one RunSchedule per schedule, named by its place, with its policy; deletes the rest", () => {
    const a = { cronExpression: "@daily", startTime: "2030-01-01T00:00:00Z" };
    const b = { cronExpression: "0 * * * *", concurrencyPolicy: "Allow" as const, maxConcurrency: 2 };
    const plan = planRunConfiguration(configuration({ schedules: [a, b] }), {
      ...observed,
      schedules: ["rc-0", "rc-1", "rc-2"],
    });
    expect(plan.schedules.map((s) => s.name)).toEqual([scheduleName("rc", 0), scheduleName("rc", 1)]);
    expect(plan.schedules[0]?.spec).toEqual({ provider: "argo", pipeline: "train", schedule: a });
    expect(plan.schedules[1]?.spec).toEqual({
      provider: "argo",
      pipeline: "train",
      schedule: { cronExpression: "0 * * * *" },
      concurrencyPolicy: "Allow",
      maxConcurrency: 2,
    });
    expect(plan.deleteSchedules).toEqual(["rc-2"]);
    expect(plan.run).toBeUndefined();
  });

  it("an edited schedule is the same RunSchedule with a new spec (an update, never a second schedule)", () => {
    const before = planRunConfiguration(
      configuration({ schedules: [{ cronExpression: "@daily" }] }),
      observed,
    );
    const after = planRunConfiguration(
      configuration({ schedules: [{ cronExpression: "@hourly", catchUp: true }] }),
      { ...observed, schedules: before.schedules.map((s) => s.name) },
    );
    expect(after.schedules.map((s) => s.name)).toEqual(before.schedules.map((s) => s.name));
    expect(after.schedules[0]?.spec).toMatchObject({
      schedule: { cronExpression: "@hourly" },
      catchUp: true,
    });
    expect(after.deleteSchedules).toEqual([]);
  });

  it("onChange pipeline: a Run when the synchronized pipeline version is new, none when it is recorded", () => {
    const first = planRunConfiguration(configuration({ onChange: ["pipeline"] }), {
      ...observed,
      pipelineVersion: "v1",
    });
    expect(first.run?.reasons).toEqual(["pipeline version v1"]);
    expect(first.triggers.pipelineVersion).toBe("v1");
    const same = planRunConfiguration(
      configuration({ onChange: ["pipeline"] }, { triggers: { pipelineVersion: "v1" } }),
      {
        ...observed,
        pipelineVersion: "v1",
      },
    );
    expect(same.run).toBeUndefined();
    const next = planRunConfiguration(
      configuration({ onChange: ["pipeline"] }, { triggers: { pipelineVersion: "v1" } }),
      {
        ...observed,
        pipelineVersion: "v2",
      },
    );
    expect(next.run?.name).not.toBe(first.run?.name);
    const unsynced = planRunConfiguration(configuration({ onChange: ["pipeline"] }), observed);
    expect(unsynced.run).toBeUndefined();
  });

  it("onChange runSpec: a Run when the run spec's version changes", () => {
    const plan = planRunConfiguration(configuration({ onChange: ["runSpec"] }), observed);
    expect(plan.run?.reasons[0]).toMatch(/^run spec version/);
    const again = planRunConfiguration(
      configuration({ onChange: ["runSpec"] }, { triggers: plan.triggers }),
      observed,
    );
    expect(again.run).toBeUndefined();
  });

  it("runConfigurations: a Run when a named configuration has a new succeeded run", () => {
    const rc = configuration(
      { runConfigurations: ["training"] },
      { triggers: { runConfigurations: { training: "t-1" } } },
    );
    expect(planRunConfiguration(rc, { ...observed, sourceRuns: { training: "t-1" } }).run).toBeUndefined();
    const plan = planRunConfiguration(rc, { ...observed, sourceRuns: { training: "t-2" } });
    expect(plan.run?.reasons).toEqual(["RunConfiguration training run t-2 succeeded"]);
    expect(plan.triggers.runConfigurations).toEqual({ training: "t-2" });
  });

  it("latestRuns.succeeded is the last run that succeeded, with its artifacts", () => {
    const runs = [
      run("a", "Succeeded", "2026-01-01T00:00:00Z"),
      run("b", "Succeeded", "2026-01-03T00:00:00Z"),
      run("c", "Failed", "2026-01-04T00:00:00Z"),
    ];
    expect(planRunConfiguration(configuration({}), { ...observed, runs }).latestRuns).toEqual({
      succeeded: { id: "b", artifacts: [{ name: "m", location: "b" }] },
    });
  });
});

describe("runConfigurationStatus", () => {
  it("RunCreated goes with the status that records its trigger; a plan creating nothing reports nothing", () => {
    const rc = configuration({ onChange: ["runSpec"] });
    const plan = planRunConfiguration(rc, observed);
    const { status, event } = runConfigurationStatus(rc, plan, []);
    expect(status.triggers?.runSpecVersion).toBe(plan.triggers.runSpecVersion);
    expect(event).toEqual({
      type: "Normal",
      reason: "RunCreated",
      message: `Run ${plan.run?.name}: run spec version ${plan.triggers.runSpecVersion}`,
    });
    const again = planRunConfiguration(configuration({ onChange: ["runSpec"] }, status), observed);
    expect(runConfigurationStatus(rc, again, []).event).toBeUndefined();
  });

  it("a RunSchedule that failed is named with its own reason (the field its backend refused)", () => {
    const rc = configuration({ schedules: [{ cronExpression: "@daily", concurrencyPolicy: "Replace" }] });
    const plan = planRunConfiguration(rc, observed);
    const message =
      "update failed (attempt 1): spec.concurrencyPolicy: a KFP recurring run cannot stop a running run (Replace is for argo): use Forbid or Allow; retrying in 5s";
    const schedule = {
      apiVersion: "pipelines.slipway.dev/v1beta1",
      kind: "RunSchedule",
      metadata: { name: "rc-0", namespace: "team" },
      spec: plan.schedules[0]?.spec,
      status: {
        state: "Failed",
        conditions: [
          {
            type: "Synchronized",
            status: "False",
            reason: "Failed",
            message,
            lastTransitionTime: "2026-01-01T00:00:00Z",
          },
        ],
      },
    } as unknown as RunSchedule;
    const { status } = runConfigurationStatus(rc, plan, [schedule]);
    expect(status.conditions?.find((c) => c.type === "Synchronized")).toMatchObject({
      status: "False",
      reason: "Failed",
      message: `RunSchedule rc-0 failed: ${message}`,
    });
  });
});
