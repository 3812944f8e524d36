import { describe, expect, it } from "vitest";
import { argoCronProblem, argoSchedulePolicyProblem } from "../../../src/pipelines/argo/backend.ts";
import { runCompletion } from "../../../src/pipelines/argo/completion.ts";
import { argoName, ownerOf } from "../../../src/pipelines/argo/names.ts";
import {
  cronWorkflow,
  providerFilePath,
  retryStrategy,
  scheduleActive,
  workflow,
  workflowSpec,
} from "../../../src/pipelines/argo/workflow.ts";
import type { PipelineDefinition, ProviderConfig } from "../../../src/pipelines/backend.ts";
import { schedulePolicy } from "../../../src/pipelines/schedule-policy.ts";

const provider: ProviderConfig = {
  key: { namespace: "ml", name: "argo" },
  spec: {
    type: "argo",
    serviceAccount: "runner",
    defaultBeamArgs: [{ name: "runner", value: "DirectRunner" }],
  },
  version: "p1",
};
const owner = (kind: string, name: string) => ({ object: {}, kind, namespace: "team", name });
const pipeline: PipelineDefinition = {
  owner: owner("Pipeline", "train"),
  name: "train",
  version: "abc",
  spec: {
    provider: "ml/argo",
    image: "img:1",
    parameters: [{ name: "dataset", default: "d0" }],
    env: [{ name: "A", value: "pipeline" }],
    beamArgs: [{ name: "runner", value: "DataflowRunner" }],
    steps: [
      { name: "prepare", env: [{ name: "A", value: "step" }] },
      {
        name: "train",
        image: "gpu:1",
        dependsOn: ["prepare"],
        args: ["--x"],
        retry: { limit: 3, backoff: { duration: "30s", factor: 2, maxDuration: "1h30m" } },
      },
    ],
  },
};

describe("argo workflow spec", () => {
  const spec = workflowSpec(pipeline, provider, {
    parameters: [{ name: "dataset", value: "d1" }],
    artifacts: [{ name: "model", path: "train:model" }],
  });
  // biome-ignore lint/suspicious/noExplicitAny: reading nested template fields
  const template = (name: string) => spec.templates.find((t) => t.name === name) as Record<string, any>;

  it("is a DAG of the steps with their dependencies", () => {
    expect(template("pipeline").dag.tasks).toEqual([
      { name: "prepare", template: "step-prepare" },
      { name: "train", template: "step-train", dependencies: ["prepare"] },
    ]);
  });

  it("gives every step the Provider as a raw artifact at /slipway/provider.json", () => {
    for (const name of ["step-prepare", "step-train"]) {
      const [artifact] = template(name).inputs.artifacts;
      expect(artifact.path).toBe(providerFilePath);
      expect(JSON.parse(artifact.raw.data)).toEqual({ provider: "ml/argo", ...provider.spec });
    }
  });

  it("merges env (step over pipeline), beam args (pipeline over provider) and parameters (run over default)", () => {
    expect(template("step-prepare").container.env).toEqual([
      { name: "A", value: "step" },
      { name: "SLIPWAY_BEAM_ARGS", value: JSON.stringify([{ name: "runner", value: "DataflowRunner" }]) },
    ]);
    expect(template("step-train").container.image).toBe("gpu:1");
    expect(template("step-prepare").container.image).toBe("img:1");
    expect(spec.arguments?.parameters).toEqual([{ name: "dataset", value: "d1" }]);
    expect(spec.serviceAccountName).toBe("runner");
  });

  it("gives a retried step's template Argo's retryStrategy (OnFailure written out), and none to the others", () => {
    expect(template("step-train").retryStrategy).toEqual({
      limit: 3,
      retryPolicy: "OnFailure",
      backoff: { duration: "30s", factor: 2, maxDuration: "1h30m" },
    });
    expect(template("step-prepare").retryStrategy).toBeUndefined();
  });

  it("renders a retry's policy, and a backoff's unset factor and maximum not at all (Argo's constant wait, no limit)", () => {
    expect(retryStrategy({ limit: 1, policy: "Always" })).toEqual({ limit: 1, retryPolicy: "Always" });
    expect(retryStrategy({ limit: 2, policy: "OnError", backoff: { duration: "5s" } })).toEqual({
      limit: 2,
      retryPolicy: "OnError",
      backoff: { duration: "5s" },
    });
  });

  it("declares the output artifacts a run records on their step", () => {
    expect(template("step-train").outputs.artifacts).toEqual([
      { name: "model", path: "/slipway/outputs/model" },
    ]);
    expect(template("step-prepare").outputs).toBeUndefined();
  });

  it("labels a Workflow back to its Run and lives in the Provider's namespace", () => {
    const run = { owner: owner("Run", "r1"), pipeline, parameters: [], artifacts: [], experimentName: "exp" };
    const object = workflow("team.r1", run, provider);
    expect(object.metadata.namespace).toBe("ml");
    expect(object.metadata.labels).toMatchObject({
      "pipelines.slipway.dev/kind": "Run",
      "pipelines.slipway.dev/name": "r1",
      "pipelines.slipway.dev/namespace": "team",
      "pipelines.slipway.dev/experiment": "exp",
    });
    expect(ownerOf(object, "Run")).toEqual({ namespace: "team", name: "r1" });
    expect(ownerOf(object, "Pipeline")).toBeUndefined();
  });

  it("suspends a CronWorkflow outside startTime..endTime", () => {
    const schedule = { startTime: "2030-01-01T00:00:00Z", endTime: "2030-02-01T00:00:00Z" };
    expect(scheduleActive(schedule, Date.parse("2029-12-31T00:00:00Z"))).toBe(false);
    expect(scheduleActive(schedule, Date.parse("2030-01-15T00:00:00Z"))).toBe(true);
    expect(scheduleActive(schedule, Date.parse("2030-02-01T00:00:00Z"))).toBe(false);
    const definition = {
      owner: owner("RunSchedule", "s"),
      pipeline,
      parameters: [],
      artifacts: [],
      schedule: { cronExpression: "@daily", ...schedule },
      ...schedulePolicy({}),
    };
    const cron = cronWorkflow("team.s", definition, provider, Date.parse("2029-01-01T00:00:00Z"));
    expect(cron.spec).toMatchObject({ schedules: ["@daily"], suspend: true, timezone: "UTC" });
  });

  it("a schedule's policy → concurrencyPolicy (Forbid by default) and startingDeadlineSeconds with catchUp only", () => {
    const definition = (policy: Parameters<typeof schedulePolicy>[0]) => ({
      owner: owner("RunSchedule", "s"),
      pipeline,
      parameters: [],
      artifacts: [],
      schedule: { cronExpression: "*/5 * * * *" },
      ...schedulePolicy(policy),
    });
    const now = Date.parse("2029-01-01T00:00:00Z");
    const spec = (policy: Parameters<typeof schedulePolicy>[0]) =>
      cronWorkflow("team.s", definition(policy), provider, now).spec as Record<string, unknown>;
    expect(spec({})).toMatchObject({ concurrencyPolicy: "Forbid" });
    expect(spec({})).not.toHaveProperty("startingDeadlineSeconds");
    expect(spec({ concurrencyPolicy: "Replace" })).toMatchObject({ concurrencyPolicy: "Replace" });
    expect(spec({ concurrencyPolicy: "Allow" })).toMatchObject({ concurrencyPolicy: "Allow" });
    expect(spec({ catchUp: true, startingDeadlineSeconds: 600 })).toMatchObject({
      concurrencyPolicy: "Forbid",
      startingDeadlineSeconds: 600,
    });
  });

  it("refuses what a CronWorkflow cannot do of a policy, naming the field; accepts the rest", () => {
    const definition = (policy: Parameters<typeof schedulePolicy>[0]) => ({
      owner: owner("RunSchedule", "s"),
      pipeline,
      parameters: [],
      artifacts: [],
      schedule: { cronExpression: "@daily" },
      ...schedulePolicy(policy),
    });
    expect(argoSchedulePolicyProblem(definition({ concurrencyPolicy: "Allow", maxConcurrency: 3 }))).toMatch(
      /^spec.maxConcurrency: the argo backend cannot bound the runs of concurrencyPolicy Allow/,
    );
    expect(argoSchedulePolicyProblem(definition({ catchUp: true }))).toMatch(
      /^spec.startingDeadlineSeconds: the argo backend catches up only within a deadline/,
    );
    for (const accepted of [
      {},
      { concurrencyPolicy: "Allow" as const },
      { concurrencyPolicy: "Replace" as const },
      { catchUp: true, startingDeadlineSeconds: 60 },
    ])
      expect(argoSchedulePolicyProblem(definition(accepted))).toBeUndefined();
  });

  it("refuses 6-field cron for argo with a message naming the field", () => {
    expect(argoCronProblem("0 */5 * * * *")).toMatch(
      /spec.schedule.cronExpression: the argo backend takes 5 cron fields/,
    );
    expect(argoCronProblem("*/5 * * * *")).toBeUndefined();
    expect(argoCronProblem("@hourly")).toBeUndefined();
  });
});

describe("argo names", () => {
  it("are namespace.name, shortened with a hash beyond 63 characters", () => {
    expect(argoName({ namespace: "team", name: "r1" })).toBe("team.r1");
    const long = argoName({ namespace: "team", name: "x".repeat(100) });
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).not.toBe(argoName({ namespace: "team", name: `${"x".repeat(99)}y` }));
  });
});

describe("run completion from the Workflow's phase", () => {
  const node = (artifacts: ({ name: string } & Record<string, unknown>)[]) => ({
    n: { displayName: "train", outputs: { artifacts } },
  });
  it.each([
    ["Running", undefined],
    ["Pending", undefined],
    [undefined, undefined],
    ["Succeeded", "Succeeded"],
    ["Failed", "Failed"],
    ["Error", "Failed"],
  ])("phase %s → %s", (phase, state) => {
    expect(runCompletion(phase ? { phase } : undefined, [])?.state).toBe(state);
  });

  it("locates the artifacts a run asked for", () => {
    const wanted = [
      { name: "model", path: "train:model" },
      { name: "metrics", path: "train:metrics" },
      { name: "missing", path: "eval:x" },
    ];
    const status = {
      phase: "Succeeded",
      finishedAt: "2026-01-01T00:00:00Z",
      nodes: node([
        { name: "model", s3: { key: "runs/1/model" } },
        { name: "metrics", gcs: { bucket: "b", key: "m.json" } },
      ]),
    };
    expect(runCompletion(status, wanted, "s3://root/")).toEqual({
      state: "Succeeded",
      finishedAt: "2026-01-01T00:00:00Z",
      artifacts: [
        { name: "model", location: "s3://root/runs/1/model" },
        { name: "metrics", location: "gs://b/m.json" },
      ],
    });
  });
});
