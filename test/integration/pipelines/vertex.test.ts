/**
 * The vertex backend's state machine: the official @google-cloud/aiplatform client talking to the
 * test Vertex endpoint (test/support/fakes/vertex-server.ts, plaintext gRPC on 127.0.0.1), which decodes every
 * request with the package's own protos and keeps jobs and schedules.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { types } from "../../../src/pipelines/types.ts";
import { eventually, testNamespace } from "../../support/cluster.ts";
import { startVertexServer, type VertexServer } from "../../support/fakes/vertex-server.ts";
import { type OutboundRecorder, recordOutbound } from "../../support/outbound.ts";
import { condition, pipelinesTestbed, vertexProviderSpec } from "../../support/pipelines-testbed.ts";
import { startEventSink } from "./event-sink.ts";
import { scheduledEventsOnce } from "./event-support.ts";
import { type ConfigMapWatch, watchConfigMaps } from "./support.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

// its Vertex endpoint listens on 127.0.0.1, which the operator's outbound policy must allow
const bed = pipelinesTestbed(true, [], { allow: ["127.0.0.1"] });
const { create, synced } = bed;
let vertex: VertexServer;
let other: VertexServer;
let configMaps: ConfigMapWatch | undefined;
let outbound: OutboundRecorder;

beforeAll(async () => {
  outbound = recordOutbound();
  [vertex, other] = await Promise.all([startVertexServer(), startVertexServer()]);
});

afterAll(async () => {
  outbound?.stop();
  await Promise.all([vertex?.stop(), other?.stop()]);
});

const vertexSpec = (location = "europe-west4", server = vertex) =>
  vertexProviderSpec(server.endpoint.port, {
    location,
    serviceAccount: "runner@slipway-test.iam.gserviceaccount.com",
    network: "projects/123/global/networks/ml",
  });

async function readyProvider(ns: string, spec: Any, status = "True", name = "vertex") {
  await create(types.provider, ns, name, spec);
  return eventually(
    `Provider ${name} Ready=${status}`,
    () => bed.api.get<Any>(types.provider, ns, name),
    (p: Any) => condition(p, "Ready")?.status === status,
    180_000, // the first vertex Provider loads the client library (a dynamic import)
  );
}

const pipelineSpec = {
  provider: "vertex",
  image: "registry.example/ml/pipeline:1",
  parameters: [{ name: "epochs", default: "3" }],
  steps: [
    {
      name: "train",
      args: ["--epochs={{workflow.parameters.epochs}}"],
      retry: { limit: 2, backoff: { duration: "1m", factor: 2, maxDuration: "30m" } },
    },
  ],
};

const nightly = (provider: string) => ({
  provider,
  pipeline: "train",
  schedule: { cronExpression: "@daily", startTime: "2020-01-01T00:00:00Z", endTime: "2040-01-01T00:00:00Z" },
  concurrencyPolicy: "Allow",
  maxConcurrency: 2,
  catchUp: true,
});

/** A Struct as the server decoded it → JSON. */
function json(value: Any): Any {
  if (value.structValue)
    return Object.fromEntries(Object.entries(value.structValue.fields ?? {}).map(([k, v]) => [k, json(v)]));
  if (value.listValue) return (value.listValue.values ?? []).map(json);
  return value.stringValue ?? value.numberValue ?? value.boolValue ?? null;
}

describe("the vertex backend (official client → test Vertex endpoint decoding with the package's protos)", () => {
  it("Ready from a get of the location; Run → PipelineJob; completion; RunSchedule → Schedule; deletes; backoff", async () => {
    const ns = await testNamespace("vtx");
    configMaps = await watchConfigMaps(bed.api, [ns]);
    const ready: Any = await readyProvider(ns, vertexSpec());
    expect(condition(ready, "Ready").message).toBe(
      `Vertex AI at 127.0.0.1 answered for projects/slipway-test/locations/europe-west4`,
    );
    await create(types.pipeline, ns, "train", pipelineSpec);
    await synced(types.pipeline, ns, "train");

    await create(types.run, ns, "ok", {
      provider: "vertex",
      pipeline: "train",
      parameters: [{ name: "epochs", value: "7" }],
      artifacts: [{ name: "model", path: "train:model" }],
    });
    const ok: Any = await synced(types.run, ns, "ok");
    const job = vertex.jobs.get(ok.status.provider.id);
    expect(job).toMatchObject({
      displayName: `${ns}.ok`,
      serviceAccount: "runner@slipway-test.iam.gserviceaccount.com",
      network: "projects/123/global/networks/ml",
      labels: { "slipway-kind": "run", "slipway-namespace": ns, "slipway-name": "ok" },
      runtimeConfig: {
        gcsOutputDirectory: "gs://bucket/root",
        parameterValues: { epochs: { numberValue: 7 } },
      },
    });
    const ir = json({ structValue: job.pipelineSpec });
    expect(ir.pipelineInfo.name).toBe("train");
    expect(ir.deploymentSpec.executors["exec-train"].container.args).toEqual([
      "--epochs={{$.inputs.parameters['epochs']}}",
    ]);
    // the same IR as kfp's: the step's retry as its task's retryPolicy
    expect(ir.root.dag.tasks.train.retryPolicy).toEqual({
      maxRetryCount: 2,
      backoffDuration: "60s",
      backoffFactor: 2,
      backoffMaxDuration: "1800s",
    });

    // Vertex's job detail (PipelineTaskDetail): the root DAG's task besides the step's
    vertex.finishJob(ok.status.provider.id, "PIPELINE_STATE_SUCCEEDED", [
      { taskName: "train-pipeline", state: "SUCCEEDED", startTime: { seconds: "1767225600" } },
      {
        taskName: "train",
        state: "SUCCEEDED",
        startTime: { seconds: "1767225605" },
        endTime: { seconds: "1767225650" },
        outputs: { model: { artifacts: [{ uri: "gs://bucket/root/train/model" }] } },
      },
    ]);
    const done: Any = await eventually(
      "Run ok completed",
      () => bed.api.get(types.run, ns, "ok"),
      (r: Any) => r.status.completionState !== undefined,
    );
    expect(done.status).toMatchObject({
      completionState: "Succeeded",
      artifacts: [{ name: "model", location: "gs://bucket/root/train/model" }],
      steps: [
        {
          name: "train",
          phase: "Succeeded",
          startedAt: "2026-01-01T00:00:05.000Z",
          finishedAt: "2026-01-01T00:00:50.000Z",
        },
      ],
    });

    await create(types.run, ns, "bad", { provider: "vertex", pipeline: "train" });
    const bad: Any = await synced(types.run, ns, "bad");
    vertex.finishJob(bad.status.provider.id, "PIPELINE_STATE_FAILED", [
      {
        taskName: "train",
        state: "FAILED",
        startTime: { seconds: "1767225605" },
        endTime: { seconds: "1767225612" },
        error: { code: 9, message: "The replica workerpool0-0 exited with a non-zero status of 3." },
      },
    ]);
    await eventually(
      "Run bad Failed, naming its step",
      () => bed.api.get(types.run, ns, "bad"),
      (r: Any) =>
        r.status.completionState === "Failed" &&
        r.status.failure ===
          "step train failed: The replica workerpool0-0 exited with a non-zero status of 3.",
    );

    await create(types.runSchedule, ns, "nightly", nightly("vertex"));
    const scheduled: Any = await synced(types.runSchedule, ns, "nightly");
    const schedule = vertex.schedules.get(scheduled.status.provider.id);
    expect(schedule).toMatchObject({
      displayName: `${ns}.nightly`,
      cron: "TZ=UTC 0 0 * * *",
      endTime: { seconds: String(Date.parse("2040-01-01T00:00:00Z") / 1000) },
      maxConcurrentRunCount: "2",
      maxConcurrentActiveRunCount: "2",
      allowQueueing: true,
    });
    expect(schedule.startTime).toBeUndefined(); // in the past: no burst of catch-up runs
    await bed.api.mergePatch(types.runSchedule, ns, "nightly", {
      spec: { schedule: { cronExpression: "15 * * * *" } },
    });
    // an edit updates the live Schedule in place
    const edited: Any = await synced(types.runSchedule, ns, "nightly", 2);
    expect(
      [...vertex.schedules.values()].filter((s) => s.displayName === `${ns}.nightly`).map((s) => s.cron),
    ).toEqual(["TZ=UTC 15 * * * *"]);
    expect(edited.status.provider.id).toBe(scheduled.status.provider.id);
    expect(vertex.mostLive.get(`${ns}.nightly`)).toBe(1);

    // one failure: recorded as attempt 1 and retried after the backoff (a status write lost to the
    // finalizer's resourceVersion once made the retry immediate, so the failure was never seen)
    vertex.failNext(1, 14, "createPipelineJob");
    await create(types.run, ns, "flaky", { provider: "vertex", pipeline: "train" });
    const failed: Any = await eventually(
      "Run flaky Failed",
      () => bed.api.get(types.run, ns, "flaky"),
      (r: Any) => r?.status?.state === "Failed",
    );
    expect(condition(failed, "Synchronized").message).toMatch(
      /^create failed \(attempt 1\): Vertex AI at 127\.0\.0\.1: CreatePipelineJob: gRPC status 14 UNAVAILABLE; retrying in 5s$/,
    );
    await synced(types.run, ns, "flaky");

    for (const name of ["ok", "bad", "flaky"]) await bed.api.delete(types.run, ns, name);
    await bed.api.delete(types.runSchedule, ns, "nightly");
    await eventually(
      "jobs and the schedule deleted",
      async () =>
        [...vertex.jobs.values(), ...vertex.schedules.values()].filter((o) =>
          o.displayName.startsWith(`${ns}.`),
        ),
      (left) => left.length === 0,
    );
    expect(vertex.requests.some((r) => r.method === "cancelPipelineJob")).toBe(true);
    expect(vertex.violations).toEqual([]);
    expect(await configMaps.stop()).toEqual([]);
    expect(outbound.outside()).toEqual([]); // google-auth never looked for the GCE metadata server
  });

  it("a schedule edit keeps one live Schedule and starts no run again; a failed or refused update leaves it as it was", async () => {
    const ns = await testNamespace("vtx");
    configMaps = await watchConfigMaps(bed.api, [ns]);
    await readyProvider(ns, vertexSpec());
    await create(types.pipeline, ns, "train", pipelineSpec);
    await synced(types.pipeline, ns, "train");
    await create(types.runSchedule, ns, "hourly", {
      provider: "vertex",
      pipeline: "train",
      schedule: { cronExpression: "0 * * * *", endTime: "2040-01-01T00:00:00Z" },
    });
    const created: Any = await synced(types.runSchedule, ns, "hourly");
    const id = created.status.provider.id;
    // Forbid (the default): one job started and running at a time, a due run skipped, not queued
    expect(vertex.schedules.get(id)).toMatchObject({
      maxConcurrentRunCount: "1",
      maxConcurrentActiveRunCount: "1",
      allowQueueing: false,
    });
    const mine = () => [...vertex.schedules.values()].filter((s) => s.displayName === `${ns}.hourly`);

    const editedAt = Math.floor(Date.now() / 1000);
    // Vertex cannot take the edit (UNAVAILABLE): Failed, the live Schedule as it was, then retried
    vertex.failNext(1, 14, "updateSchedule");
    await bed.api.mergePatch(types.runSchedule, ns, "hourly", {
      spec: { schedule: { cronExpression: "30 * * * *", endTime: null } },
    });
    const failed: Any = await eventually(
      "RunSchedule hourly Failed",
      () => bed.api.get<Any>(types.runSchedule, ns, "hourly"),
      (r: Any) => r.status?.state === "Failed",
    );
    expect(condition(failed, "Synchronized").message).toMatch(
      /^update failed \(attempt 1\): Vertex AI at 127\.0\.0\.1: UpdateSchedule: gRPC status 14 UNAVAILABLE; retrying in 5s$/,
    );
    expect(failed.status.provider.id).toBe(id);
    expect(mine().map((s) => [s.name, s.cron])).toEqual([[id, "TZ=UTC 0 * * * *"]]);
    const edited: Any = await synced(types.runSchedule, ns, "hourly", 2);
    expect(edited.status.provider.id).toBe(id);
    const [live] = mine();
    expect(live.cron).toBe("TZ=UTC 30 * * * *");
    // no run due before the edit (its startTime is the update's), the dropped endTime never comes
    expect(Number(live.startTime.seconds)).toBeGreaterThanOrEqual(editedAt);
    expect(live.endTime).toEqual({ seconds: "253402300799" });
    const update = vertex.requests
      .filter((r) => r.method === "updateSchedule" && r.request.schedule.name === id)
      .at(-1);
    expect(update?.request.updateMask.paths).toContain("end_time");

    // a policy Vertex cannot honour: refused naming the field, the live Schedule untouched
    await bed.api.mergePatch(types.runSchedule, ns, "hourly", {
      spec: { concurrencyPolicy: "Replace", schedule: { cronExpression: "45 * * * *" } },
    });
    const refused: Any = await eventually(
      "RunSchedule hourly refused",
      () => bed.api.get<Any>(types.runSchedule, ns, "hourly"),
      (r: Any) => r.status?.state === "Failed" && r.status.observedGeneration === 3,
    );
    expect(condition(refused, "Synchronized").message).toMatch(
      /^update failed \(attempt 1\): spec.concurrencyPolicy: a Vertex AI Schedule cannot stop a running job \(Replace is for argo\): use Forbid or Allow; retrying in 5s$/,
    );
    expect(mine().map((s) => [s.name, s.cron])).toEqual([[id, "TZ=UTC 30 * * * *"]]);

    // never two live Schedules of it (each would start every run)
    expect(vertex.mostLive.get(`${ns}.hourly`)).toBe(1);
    await bed.api.delete(types.runSchedule, ns, "hourly");
    await eventually(
      "the Schedule deleted",
      async () => mine(),
      (left) => left.length === 0,
    );
    expect(vertex.violations).toEqual([]);
    expect(await configMaps.stop()).toEqual([]);
  });

  it("a Pipeline edit is a new version the next Run's job runs; a RunSchedule moves with its Provider", async () => {
    const ns = await testNamespace("vtx");
    configMaps = await watchConfigMaps(bed.api, [ns]);
    await readyProvider(ns, vertexSpec());
    await readyProvider(ns, vertexSpec("europe-west4", other), "True", "second");
    await create(types.pipeline, ns, "train", pipelineSpec);
    const first: Any = await synced(types.pipeline, ns, "train");
    await bed.api.mergePatch(types.pipeline, ns, "train", {
      spec: { steps: [{ name: "train", args: ["--epochs={{workflow.parameters.epochs}}", "--v2"] }] },
    });
    const second: Any = await synced(types.pipeline, ns, "train", 2);
    expect(second.status.version).not.toBe(first.status.version);
    await create(types.run, ns, "after-edit", { provider: "vertex", pipeline: "train" });
    const run: Any = await synced(types.run, ns, "after-edit");
    const ir = json({ structValue: vertex.jobs.get(run.status.provider.id).pipelineSpec });
    expect(ir.deploymentSpec.executors["exec-train"].container.args).toEqual([
      "--epochs={{$.inputs.parameters['epochs']}}",
      "--v2",
    ]);

    await create(types.runSchedule, ns, "nightly", nightly("vertex"));
    const scheduled: Any = await synced(types.runSchedule, ns, "nightly");
    expect(vertex.schedules.has(scheduled.status.provider.id)).toBe(true);
    await bed.api.mergePatch(types.runSchedule, ns, "nightly", { spec: { provider: "second" } });
    const moved: Any = await synced(types.runSchedule, ns, "nightly", 2);
    expect(moved.status.provider.name).toBe(`${ns}/second`);
    const mine = (server: VertexServer) =>
      [...server.schedules.values()].filter((s) => s.displayName === `${ns}.nightly`);
    expect(mine(vertex)).toEqual([]);
    expect(mine(other).map((s) => s.name)).toEqual([moved.status.provider.id]);

    await bed.api.delete(types.runSchedule, ns, "nightly");
    await bed.api.delete(types.run, ns, "after-edit");
    await eventually(
      "the moved schedule deleted at the second endpoint",
      async () => mine(other),
      (left) => left.length === 0,
    );
    expect([...vertex.violations, ...other.violations]).toEqual([]);
    expect(await configMaps.stop()).toEqual([]);
    expect(outbound.outside()).toEqual([]);
  });

  it("the jobs a Schedule starts, Succeeded and Failed: each completion delivered once to a 127.0.0.1 sink (SDK parser), none missed", async () => {
    const ns = await testNamespace("vtx");
    const sink = await startEventSink();
    try {
      await readyProvider(ns, { ...vertexSpec(), eventSinks: [{ url: sink.url }] });
      await create(types.pipeline, ns, "train", pipelineSpec);
      await synced(types.pipeline, ns, "train");
      await create(types.runSchedule, ns, "nightly", nightly("vertex"));
      const scheduled: Any = await synced(types.runSchedule, ns, "nightly");
      const scheduleName = scheduled.status.provider.id;
      // Vertex's scheduler starts jobs (scheduleName set) and finishes them
      const [ok, bad, running] = [1, 2, 3].map(() => vertex.startScheduledRun(scheduleName));
      vertex.finishJob(ok as string, "PIPELINE_STATE_SUCCEEDED", undefined, 1767229205);
      vertex.finishJob(bad as string, "PIPELINE_STATE_FAILED", undefined, 1767232807);
      const where = { namespace: ns, provider: "vertex", schedule: "nightly" };
      await scheduledEventsOnce(
        sink,
        { [ok as string]: "Succeeded", [bad as string]: "Failed" },
        where,
        bed.operator,
      );
      vertex.finishJob(running as string, "PIPELINE_STATE_CANCELLED", undefined, 1767236401);
      await scheduledEventsOnce(
        sink,
        { [ok as string]: "Succeeded", [bad as string]: "Failed", [running as string]: "Failed" },
        where,
        bed.operator,
      );
      // the list call as sent for this Schedule (other tests' RunSchedules are tracked too)
      const lists = vertex.requests.filter(
        (r) => r.method === "listPipelineJobs" && r.request.filter.includes(scheduleName),
      );
      expect(lists[0]?.request).toMatchObject({
        filter: `schedule_name="${scheduleName}" AND end_time>"1970-01-01T00:00:00Z"`,
        orderBy: "end_time",
      });
      expect(vertex.violations).toEqual([]);
    } finally {
      await sink.close();
    }
  });

  it("caching: each task's cachingOptions in the job's pipelineSpec (a Run's own over the step's); status.caching; a CACHED execution is the step's cache hit", async () => {
    const ns = await testNamespace("vtx");
    await readyProvider(ns, { ...vertexSpec(), defaultCaching: { enabled: true } });
    await create(types.pipeline, ns, "train", {
      ...pipelineSpec,
      steps: [
        { name: "fetch", args: ["--epochs={{workflow.parameters.epochs}}"] },
        { name: "train", dependsOn: ["fetch"], caching: { enabled: false } },
      ],
    });
    await synced(types.pipeline, ns, "train");
    await create(types.run, ns, "cached", { provider: "vertex", pipeline: "train" });
    await create(types.run, ns, "fresh", {
      provider: "vertex",
      pipeline: "train",
      caching: { enabled: false },
    });
    const cached: Any = await synced(types.run, ns, "cached");
    const fresh: Any = await synced(types.run, ns, "fresh");
    const tasks = (run: Any) =>
      json({ structValue: vertex.jobs.get(run.status.provider.id).pipelineSpec }).root.dag.tasks;
    expect(tasks(cached).fetch.cachingOptions).toEqual({ enableCache: true });
    expect(tasks(cached).train.cachingOptions).toEqual({ enableCache: false });
    expect(tasks(fresh).fetch.cachingOptions).toEqual({ enableCache: false });

    // Vertex's job detail: fetch reused an earlier execution (Execution.State CACHED), train ran
    vertex.finishJob(cached.status.provider.id, "PIPELINE_STATE_SUCCEEDED", [
      {
        taskName: "fetch",
        state: "SUCCEEDED",
        startTime: { seconds: "1767225605" },
        endTime: { seconds: "1767225606" },
        execution: { state: "CACHED" },
      },
      {
        taskName: "train",
        state: "SUCCEEDED",
        startTime: { seconds: "1767225607" },
        endTime: { seconds: "1767225650" },
        execution: { state: "COMPLETE" },
      },
    ]);
    const done: Any = await eventually(
      "Run cached completed",
      () => bed.api.get(types.run, ns, "cached"),
      (r: Any) => r.status.completionState !== undefined,
    );
    expect(done.status.caching).toEqual([
      { step: "fetch", enabled: true },
      { step: "train", enabled: false },
    ]);
    expect(done.status.steps.map((step: Any) => [step.name, step.cacheHit])).toEqual([
      ["fetch", true],
      ["train", false],
    ]);
    const freshNow: Any = await bed.api.get(types.run, ns, "fresh");
    expect(freshNow.status.caching).toEqual([
      { step: "fetch", enabled: false },
      { step: "train", enabled: false },
    ]);
    // Vertex cannot honour a maximum age: the Run says so, naming its field; no job is created
    await create(types.run, ns, "aged", {
      provider: "vertex",
      pipeline: "train",
      caching: { enabled: true, maxAge: "1h" },
    });
    const aged: Any = await eventually(
      "Run aged Failed",
      () => bed.api.get(types.run, ns, "aged"),
      (r: Any) => r?.status?.state === "Failed",
    );
    expect(condition(aged, "Synchronized").message).toMatch(
      /^create failed \(attempt \d\): spec\.caching\.maxAge: KFP's caching has no maximum age of a reused execution \(argo only\): leave maxAge unset/,
    );
    expect([...vertex.jobs.values()].filter((job) => job.displayName === `${ns}.aged`)).toEqual([]);
    expect(vertex.violations).toEqual([]);
  });

  it("a location Vertex does not know → Ready=False naming the endpoint and the gRPC status, not the backend's text", async () => {
    const ns = await testNamespace("vtx");
    const notReady: Any = await readyProvider(ns, vertexSpec("us-central1"), "False");
    expect(condition(notReady, "Ready").message).toBe(
      "Vertex AI at 127.0.0.1: GetLocation projects/slipway-test/locations/us-central1: gRPC status 5 NOT_FOUND",
    );
    expect(outbound.outside()).toEqual([]);
  });
});
