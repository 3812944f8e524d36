import { describe, expect, it } from "vitest";
import type { Pipeline } from "../../../src/apis/pipelines/pipeline.ts";
import { type Run, RunKind } from "../../../src/apis/pipelines/run.ts";
import { cacheConfigMapName, memoizationKey } from "../../../src/pipelines/argo/memoize.ts";
import { cacheHits, entryWorkflow, withReusedRuns } from "../../../src/pipelines/argo/reused-runs.ts";
import { runSteps } from "../../../src/pipelines/argo/steps.ts";
import { cronWorkflow, workflow, workflowTemplate } from "../../../src/pipelines/argo/workflow.ts";
import type { PipelineDefinition, ProviderConfig, RunDefinition } from "../../../src/pipelines/backend.ts";
import {
  type CachingLevels,
  effectiveCaching,
  stepCachingStatus,
  uncacheableStepInputs,
  unhonouredMaxAge,
} from "../../../src/pipelines/caching.ts";
import { compilePipeline, runCompileError } from "../../../src/pipelines/kfp/compile.ts";
import { runBody, versionName } from "../../../src/pipelines/kfp/requests.ts";
import { runCachingStatus, withRunCaching } from "../../../src/pipelines/run-caching.ts";
import { schedulePolicy } from "../../../src/pipelines/schedule-policy.ts";
import { pipelineSpecKey } from "../../../src/pipelines/vertex/requests.ts";
import { vertexRunSteps } from "../../../src/pipelines/vertex/run-steps.ts";

const twoSteps = (caching?: Pipeline["spec"]["caching"], first?: Pipeline["spec"]["caching"]) => ({
  ...(caching ? { caching } : {}),
  steps: [{ name: "fetch", ...(first ? { caching: first } : {}) }, { name: "train" }],
});

describe("the effective caching policy of a step", () => {
  it("is off when no level sets one", () => {
    expect(effectiveCaching({ pipeline: twoSteps() }, 0)).toEqual({ enabled: false });
    expect(stepCachingStatus({ pipeline: twoSteps() })).toBeUndefined();
  });

  it("takes each field from the most specific level: Run, then step, then Pipeline, then Provider", () => {
    const levels: CachingLevels = {
      provider: { enabled: true, maxAge: "24h" },
      pipeline: twoSteps({ enabled: false }, { enabled: true }),
    };
    expect(effectiveCaching(levels, 0)).toEqual({
      enabled: true,
      maxAge: "24h",
      maxAgeField: "spec.defaultCaching.maxAge",
    });
    // the Pipeline's enabled: false over the Provider's true; the Provider's maxAge still applies
    expect(effectiveCaching(levels, 1)).toEqual({
      enabled: false,
      maxAge: "24h",
      maxAgeField: "spec.defaultCaching.maxAge",
    });
    const stepAge = { pipeline: twoSteps({ enabled: true, maxAge: "1h" }, { maxAge: "10m" }) };
    expect(effectiveCaching(stepAge, 0)).toEqual({
      enabled: true,
      maxAge: "10m",
      maxAgeField: "spec.steps[0].caching.maxAge",
    });
    expect(effectiveCaching(stepAge, 1)).toMatchObject({ maxAge: "1h", maxAgeField: "spec.caching.maxAge" });
  });

  it("a Run's setting overrides the step's, both ways", () => {
    const cachedStep = { pipeline: twoSteps(undefined, { enabled: true }) };
    expect(effectiveCaching({ ...cachedStep, run: { enabled: false } }, 0).enabled).toBe(false);
    const uncached = { pipeline: twoSteps({ enabled: false }, { enabled: false }) };
    expect(effectiveCaching({ ...uncached, run: { enabled: true } }, 0).enabled).toBe(true);
    expect(effectiveCaching({ ...uncached, run: { enabled: true } }, 1).enabled).toBe(true);
  });

  it("the Run's status lists every step's policy once any level sets one", () => {
    expect(stepCachingStatus({ pipeline: twoSteps(undefined, { enabled: true, maxAge: "2h" }) })).toEqual([
      { step: "fetch", enabled: true, maxAge: "2h" },
      { step: "train", enabled: false },
    ]);
  });

  it("kfp and vertex refuse a maxAge only where a step caches with it, naming the field", () => {
    expect(unhonouredMaxAge({ pipeline: twoSteps({ enabled: false, maxAge: "1h" }) })).toBeUndefined();
    expect(unhonouredMaxAge({ pipeline: twoSteps({ maxAge: "1h" }, { enabled: true }) })).toMatchObject({
      field: "spec.caching.maxAge",
    });
    expect(
      unhonouredMaxAge({ pipeline: twoSteps(undefined, { maxAge: "1h" }), run: { enabled: true } }),
    ).toMatchObject({ field: "spec.steps[0].caching.maxAge" });
  });
});

const provider: ProviderConfig = {
  key: { namespace: "ml", name: "argo" },
  spec: { type: "argo", defaultCaching: { maxAge: "48h" } },
  version: "p1",
};
const owner = (kind: string, name: string) => ({ object: {}, kind, namespace: "team", name });
const pipeline: PipelineDefinition = {
  owner: owner("Pipeline", "train"),
  name: "train",
  version: "v1",
  spec: {
    provider: "ml/argo",
    image: "img:1",
    parameters: [{ name: "dataset", default: "d0" }],
    steps: [
      { name: "fetch", args: ["{{workflow.parameters.dataset}}"], caching: { enabled: true } },
      { name: "train", dependsOn: ["fetch"] },
    ],
  },
};
const run = (extra: Partial<RunDefinition> = {}): RunDefinition => ({
  owner: owner("Run", "r1"),
  pipeline,
  parameters: [{ name: "dataset", value: "s3://data/a b?" }],
  artifacts: [],
  ...extra,
});

// biome-ignore lint/suspicious/noExplicitAny: reading nested template fields
type Any = any;
const templates = (spec: Any) => Object.fromEntries(spec.templates.map((t: Any) => [t.name, t]));

describe("argo memoization", () => {
  it("memoizes the steps that cache, with a key Argo's ConfigMap cache accepts, maxAge and the Provider's cache", () => {
    const byName = templates(workflow("team.r1", run(), provider).spec);
    const memoize = byName["step-fetch"].memoize;
    // workflow/controller/cache/cache.go cacheKeyRegex
    expect(memoize.key).toMatch(/^[a-zA-Z0-9][-a-zA-Z0-9]*$/);
    expect(memoize.maxAge).toBe("48h");
    expect(memoize.cache).toEqual({ configMap: { name: "slipway-step-cache.argo" } });
    expect(byName["step-train"].memoize).toBeUndefined();
    expect(byName.pipeline.memoize).toBeUndefined();
  });

  it("the key changes with the run's parameters, the pipeline's version and the Provider's document, not otherwise", () => {
    const keyOf = (definition: RunDefinition, config = provider) =>
      templates(workflow("team.r", definition, config).spec)["step-fetch"].memoize.key;
    const base = keyOf(run());
    expect(keyOf(run({ owner: owner("Run", "r2") }))).toBe(base);
    expect(keyOf(run({ parameters: [{ name: "dataset", value: "other" }] }))).not.toBe(base);
    expect(keyOf(run({ pipeline: { ...pipeline, version: "v2" } }))).not.toBe(base);
    const other = { ...provider, spec: { ...provider.spec, image: "helper:2" } };
    expect(keyOf(run(), other)).not.toBe(base);
    expect(memoizationKey("v1", { name: "a" }, [])).not.toBe(memoizationKey("v1", { name: "b" }, []));
  });

  it("a Run's caching turns it off or on for every step", () => {
    const off = templates(workflow("team.r1", run({ caching: { enabled: false } }), provider).spec);
    expect(off["step-fetch"].memoize).toBeUndefined();
    const on = templates(
      workflow("team.r1", run({ caching: { enabled: true, maxAge: "5m" } }), provider).spec,
    );
    expect(on["step-fetch"].memoize.maxAge).toBe("5m");
    expect(on["step-train"].memoize.maxAge).toBe("5m");
  });

  it("a CronWorkflow's runs are memoized; a WorkflowTemplate (parameters unknown) is not", () => {
    const schedule = {
      ...run(),
      owner: owner("RunSchedule", "nightly"),
      schedule: { cronExpression: "0 1 * * *" },
      ...schedulePolicy({}),
    };
    const cron = cronWorkflow("team.nightly", schedule, provider, 0);
    expect(templates(cron.spec.workflowSpec)["step-fetch"].memoize).toBeDefined();
    const template = workflowTemplate("team.train", pipeline, provider);
    expect(templates(template.spec)["step-fetch"].memoize).toBeUndefined();
  });

  it("names a long Provider's cache within a ConfigMap name's 253 characters", () => {
    const long = { ...provider, key: { namespace: "ml", name: "p".repeat(253) } };
    expect(cacheConfigMapName(long).length).toBeLessThanOrEqual(253);
    expect(cacheConfigMapName(long)).not.toBe(
      cacheConfigMapName({ ...long, key: { ...long.key, name: "q".repeat(253) } }),
    );
  });

  it("a step's cache hit from its node's memoizationStatus; none said without one", () => {
    const steps = runSteps({
      a: {
        displayName: "fetch",
        templateName: "step-fetch",
        phase: "Succeeded",
        memoizationStatus: { hit: true },
      },
      b: {
        displayName: "train",
        templateName: "step-train",
        phase: "Running",
        memoizationStatus: { hit: false },
      },
      c: { displayName: "report", templateName: "step-report", phase: "Pending" },
    });
    expect(Object.fromEntries(steps.map((s) => [s.name, s.cacheHit]))).toEqual({
      fetch: true,
      train: false,
      report: undefined,
    });
  });
});

describe("argo and a caching step that takes another step's outputs", () => {
  const io = (caching?: Pipeline["spec"]["caching"], trainCaching?: Pipeline["spec"]["caching"]) => ({
    ...(caching ? { caching } : {}),
    steps: [
      { name: "prepare", outputs: { parameters: [{ name: "rows" }] } },
      {
        name: "train",
        inputs: {
          parameters: [
            { name: "rows", from: { step: "prepare", output: "rows" } },
            { name: "lr", from: { parameter: "lr" } },
          ],
        },
        ...(trainCaching ? { caching: trainCaching } : {}),
      },
    ],
  });

  it("is refused, naming the field that turned caching on for it (its key cannot hold those outputs)", () => {
    expect(uncacheableStepInputs({ pipeline: io({ enabled: true }) })).toEqual({
      field: "spec.caching.enabled",
      rule: expect.stringMatching(
        /^step train takes another step's outputs, which argo's cache key cannot include/,
      ),
    });
    expect(uncacheableStepInputs({ pipeline: io(), provider: { enabled: true } })?.field).toBe(
      "spec.defaultCaching.enabled",
    );
  });

  it("is fine when that step does not cache, or takes only pipeline parameters", () => {
    expect(uncacheableStepInputs({ pipeline: io({ enabled: true }, { enabled: false }) })).toBeUndefined();
    const parametersOnly = {
      caching: { enabled: true },
      steps: [{ name: "train", inputs: { parameters: [{ name: "lr", from: { parameter: "lr" } }] } }],
    };
    expect(uncacheableStepInputs({ pipeline: parametersOnly })).toBeUndefined();
  });
});

describe("the run a cache hit reused (argo's cache entry)", () => {
  const nodes = {
    a: {
      displayName: "fetch",
      templateName: "step-fetch",
      phase: "Succeeded",
      memoizationStatus: { hit: true, key: "slipway-k1", cacheName: "slipway-step-cache.argo" },
    },
    b: {
      displayName: "train",
      templateName: "step-train",
      phase: "Succeeded",
      memoizationStatus: { hit: false, key: "slipway-k2", cacheName: "slipway-step-cache.argo" },
    },
  };

  it("is the Workflow of the node id that saved the entry (Workflow.NodeID: <workflow>-<fnv32a>)", () => {
    expect(entryWorkflow(JSON.stringify({ nodeID: "team.r1-1834710231", outputs: null }))).toBe("team.r1");
    expect(entryWorkflow(JSON.stringify({ nodeID: "team.r-2-7" }))).toBe("team.r-2");
    expect(entryWorkflow("not json")).toBeUndefined();
    expect(entryWorkflow(JSON.stringify({ outputs: {} }))).toBeUndefined();
    expect(entryWorkflow(undefined)).toBeUndefined();
  });

  it("is read for the hits only, and set on their steps where the entry is there", () => {
    const steps = runSteps(nodes);
    const hits = cacheHits(nodes, steps);
    expect(hits).toEqual([{ step: "fetch", cacheName: "slipway-step-cache.argo", key: "slipway-k1" }]);
    const entries = new Map([
      ["slipway-step-cache.argo", { "slipway-k1": JSON.stringify({ nodeID: "team.r0-42" }) }],
    ]);
    expect(withReusedRuns(steps, hits, entries).map((s) => [s.name, s.reusedRun])).toEqual([
      ["fetch", "team.r0"],
      ["train", undefined],
    ]);
    // the ConfigMap gone: nothing said
    expect(withReusedRuns(steps, hits, new Map()).map((s) => s.reusedRun)).toEqual([undefined, undefined]);
  });
});

describe("kfp and vertex caching", () => {
  const kfp = (spec: Pipeline["spec"], extra = {}) => compilePipeline({ name: "p", spec, ...extra });
  const spec: Pipeline["spec"] = {
    provider: "kfp",
    image: "alpine",
    caching: { enabled: true },
    steps: [{ name: "fetch" }, { name: "train", caching: { enabled: false } }],
  };

  it("each task's cachingOptions.enableCache is its step's effective policy", () => {
    const compiled = kfp(spec);
    if (!compiled.ok) throw new Error(compiled.error);
    expect(compiled.ir.root.dag.tasks.fetch?.cachingOptions).toEqual({ enableCache: true });
    expect(compiled.ir.root.dag.tasks.train?.cachingOptions).toEqual({ enableCache: false });
    const runOff = kfp(spec, { runCaching: { enabled: false } });
    if (!runOff.ok) throw new Error(runOff.error);
    expect(runOff.ir.root.dag.tasks.fetch?.cachingOptions).toEqual({ enableCache: false });
  });

  it("refuses a maxAge a caching step would have, naming the field", () => {
    const aged = kfp({ ...spec, steps: [{ name: "fetch", caching: { maxAge: "1h" } }] });
    expect(aged).toMatchObject({ ok: false, field: "spec.steps[0].caching.maxAge" });
    expect(aged.ok ? "" : aged.error).toMatch(/spec\.steps\[0\]\.caching\.maxAge: .*no maximum age/);
    const runAged = kfp(spec, { runCaching: { maxAge: "1h" } });
    expect(runAged).toMatchObject({ ok: false, field: "spec.caching.maxAge" });
    // a Run's condition: its own maxAge under its own field; the Pipeline's under spec.pipeline
    if (runAged.ok) throw new Error("compiled");
    expect(runCompileError(runAged, "p", { maxAge: "1h" })).toMatch(/^spec\.caching\.maxAge: /);
    const pipelineAged = kfp(
      { ...spec, caching: { enabled: true, maxAge: "1h" } },
      { runCaching: { enabled: true } },
    );
    if (pipelineAged.ok) throw new Error("compiled");
    expect(runCompileError(pipelineAged, "p", { enabled: true })).toMatch(
      /^spec\.pipeline: Pipeline p: spec\.caching\.maxAge: /,
    );
  });

  it("a kfp run with its own caching sends its IR inline instead of the version (one of pipeline_source)", () => {
    const kfpProvider: ProviderConfig = {
      key: { namespace: "ml", name: "kfp" },
      spec: { type: "kfp" },
      version: "p",
    };
    const synced = {
      metadata: { name: "train" },
      status: { state: "Succeeded", provider: { name: "ml/kfp", id: "pid/vid" } },
    };
    const definition = run({ pipeline: { ...pipeline, owner: { ...pipeline.owner, object: synced } } });
    const byVersion = runBody(definition, kfpProvider);
    expect(byVersion).toMatchObject({
      pipeline_version_reference: { pipeline_id: "pid", pipeline_version_id: "vid" },
    });
    expect(byVersion).not.toHaveProperty("pipeline_spec");
    const inline = runBody(definition, kfpProvider, { root: {} });
    expect(inline).toMatchObject({ pipeline_spec: { root: {} } });
    expect(inline).not.toHaveProperty("pipeline_version_reference");
  });

  it("a kfp version's name changes with the Provider's defaultCaching (a new IR is a new version), and is the Slipway version without Provider defaults", () => {
    const kfpProvider: ProviderConfig = {
      key: { namespace: "ml", name: "kfp" },
      spec: { type: "kfp" },
      version: "p",
    };
    expect(versionName(pipeline, kfpProvider)).toBe("v1");
    const on = versionName(pipeline, {
      ...kfpProvider,
      spec: { type: "kfp", defaultCaching: { enabled: true } },
    });
    const off = versionName(pipeline, {
      ...kfpProvider,
      spec: { type: "kfp", defaultCaching: { enabled: false } },
    });
    expect(on).toMatch(/^v1-[0-9a-f]{8}$/);
    expect(off).not.toBe(on);
  });

  it("vertex compiles a Run with its own caching apart from the Pipeline's (the kept spec's key)", () => {
    const vertexProvider: ProviderConfig = {
      key: { namespace: "ml", name: "v" },
      spec: { type: "vertex" },
      version: "p",
    };
    const key = pipelineSpecKey(run(), vertexProvider);
    expect(pipelineSpecKey(run({ caching: { enabled: false } }), vertexProvider)).not.toBe(key);
    const withDefault = {
      ...vertexProvider,
      spec: { ...vertexProvider.spec, defaultCaching: { enabled: true } },
    };
    expect(pipelineSpecKey(run(), withDefault)).not.toBe(key);
  });

  it("vertex: a task whose execution is CACHED is a cache hit; another execution state is not; none said without one", () => {
    const steps = vertexRunSteps(
      [
        { taskName: "fetch", state: "SUCCEEDED", execution: { state: "CACHED" } },
        { taskName: "train", state: "SUCCEEDED", execution: { state: "COMPLETE" } },
        { taskName: "report", state: "RUNNING" },
      ],
      ["fetch", "train", "report"],
    );
    expect(Object.fromEntries(steps.map((s) => [s.name, s.cacheHit]))).toEqual({
      fetch: true,
      train: false,
      report: undefined,
    });
  });
});

describe("the Run's status.caching", () => {
  const runObject = (status?: Run["status"]): Run => ({
    apiVersion: RunKind.apiVersion,
    kind: "Run",
    metadata: { name: "r1", namespace: "team" },
    spec: { provider: "ml/argo", pipeline: "train", caching: { enabled: false } },
    ...(status ? { status } : {}),
  });
  const at = (justSynchronized: boolean) => ({
    now: 0,
    justSynchronized,
    provider,
    definition: run(),
  });

  it("is computed when the Run is submitted, kept as recorded after", () => {
    expect(runCachingStatus(runObject(), at(true))).toEqual([
      { step: "fetch", enabled: false, maxAge: "48h" },
      { step: "train", enabled: false, maxAge: "48h" },
    ]);
    const recorded = [{ step: "fetch", enabled: true }];
    expect(runCachingStatus(runObject({ caching: recorded }), at(false))).toBe(recorded);
  });

  it("is added to what the follow-up writes, also after a poll", () => {
    const caching = [{ step: "fetch", enabled: true }];
    expect(withRunCaching({ type: "settled", requeueAfterMs: 5 }, caching)).toEqual({
      type: "settled",
      requeueAfterMs: 5,
      status: { caching },
    });
    const poll = withRunCaching(
      {
        type: "poll",
        provider: "ml/argo",
        id: "x",
        wanted: { artifacts: [] },
        next: () => ({ type: "settled", status: { steps: [] } }),
      },
      caching,
    );
    if (poll.type !== "poll") throw new Error("not a poll");
    expect(poll.next(undefined).status).toEqual({ steps: [], caching });
    expect(withRunCaching({ type: "settled" }, undefined)).toEqual({ type: "settled" });
  });
});
