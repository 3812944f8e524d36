/**
 * The vertex backend's state machine: the official @google-cloud/aiplatform client talking to the
 * test Vertex endpoint (src/dev/vertex-server.ts, plaintext gRPC on 127.0.0.1), which decodes every
 * request with the package's own protos and keeps jobs and schedules.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pipelineKinds } from "../../../src/apis/pipelines/index.ts";
import { Api, startPipelinesOperator } from "../../../src/dev/pipelines-operator.ts";
import { startVertexServer, type VertexServer } from "../../../src/dev/vertex-server.ts";
import type { Manager } from "../../../src/kube/manager.ts";
import { types } from "../../../src/pipelines/types.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { type OutboundRecorder, recordOutbound } from "../../support/outbound.ts";
import { type ConfigMapWatch, watchConfigMaps } from "./support.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

const group = "pipelines.slipway.dev/v1alpha1";
let api: Api;
let operator: Manager;
let vertex: VertexServer;
let configMaps: ConfigMapWatch | undefined;
let outbound: OutboundRecorder;

const condition = (object: Any, type: string) =>
  object?.status?.conditions?.find((c: Any) => c.type === type);

beforeAll(async () => {
  outbound = recordOutbound();
  api = new Api(adminConfig());
  await installCrds(pipelineKinds);
  vertex = await startVertexServer();
  operator = await startPipelinesOperator(adminConfig(), {
    completionPollSeconds: 1,
    defaultTtlSeconds: 3600,
  });
}, 120_000);

afterAll(async () => {
  outbound?.stop();
  await operator?.stop();
  await vertex?.stop();
  api?.close();
});

const vertexSpec = (location = "europe-west4") => ({
  type: "vertex",
  pipelineRootStorage: "gs://bucket/root",
  parameters: {
    project: "slipway-test",
    location,
    serviceAccount: "runner@slipway-test.iam.gserviceaccount.com",
    network: "projects/123/global/networks/ml",
    apiEndpoint: `127.0.0.1:${vertex.endpoint.port}`,
    plaintext: true,
  },
});

async function create(type: Any, ns: string, name: string, spec: Any) {
  await api.create(type, { apiVersion: group, kind: type.kind, metadata: { name, namespace: ns }, spec });
}

const synced = (type: Any, ns: string, name: string, generation = 1) =>
  eventually(
    `${type.kind} ${name} Succeeded at generation ${generation}`,
    () => api.get<Any>(type, ns, name),
    (o: Any) => o?.status?.state === "Succeeded" && o.status.observedGeneration === generation,
  );

async function readyProvider(ns: string, spec: Any, status = "True") {
  await create(types.provider, ns, "vertex", spec);
  return eventually(
    `Provider Ready=${status}`,
    () => api.get<Any>(types.provider, ns, "vertex"),
    (p: Any) => condition(p, "Ready")?.status === status,
    180_000, // the first vertex Provider loads the client library (a dynamic import)
  );
}

const pipelineSpec = {
  provider: "vertex",
  image: "registry.example/ml/pipeline:1",
  parameters: [{ name: "epochs", default: "3" }],
  steps: [{ name: "train", args: ["--epochs={{workflow.parameters.epochs}}"] }],
};

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
    configMaps = await watchConfigMaps(api, [ns]);
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

    vertex.finishJob(ok.status.provider.id, "PIPELINE_STATE_SUCCEEDED", [
      { taskName: "train", outputs: { model: { artifacts: [{ uri: "gs://bucket/root/train/model" }] } } },
    ]);
    const done: Any = await eventually(
      "Run ok completed",
      () => api.get(types.run, ns, "ok"),
      (r: Any) => r.status.completionState !== undefined,
    );
    expect(done.status).toMatchObject({
      completionState: "Succeeded",
      artifacts: [{ name: "model", location: "gs://bucket/root/train/model" }],
    });

    await create(types.run, ns, "bad", { provider: "vertex", pipeline: "train" });
    const bad: Any = await synced(types.run, ns, "bad");
    vertex.finishJob(bad.status.provider.id, "PIPELINE_STATE_FAILED");
    await eventually(
      "Run bad Failed",
      () => api.get(types.run, ns, "bad"),
      (r: Any) => r.status.completionState === "Failed",
    );

    await create(types.runSchedule, ns, "nightly", {
      provider: "vertex",
      pipeline: "train",
      schedule: {
        cronExpression: "@daily",
        startTime: "2020-01-01T00:00:00Z",
        endTime: "2040-01-01T00:00:00Z",
      },
      maxConcurrency: 2,
      catchUp: true,
    });
    const scheduled: Any = await synced(types.runSchedule, ns, "nightly");
    const schedule = vertex.schedules.get(scheduled.status.provider.id);
    expect(schedule).toMatchObject({
      displayName: `${ns}.nightly`,
      cron: "TZ=UTC 0 0 * * *",
      endTime: { seconds: String(Date.parse("2040-01-01T00:00:00Z") / 1000) },
      maxConcurrentRunCount: "2",
      allowQueueing: true,
    });
    expect(schedule.startTime).toBeUndefined(); // in the past: no burst of catch-up runs
    await api.mergePatch(types.runSchedule, ns, "nightly", {
      spec: { schedule: { cronExpression: "15 * * * *" } },
    });
    const replaced: Any = await synced(types.runSchedule, ns, "nightly", 2);
    expect(
      [...vertex.schedules.values()].filter((s) => s.displayName === `${ns}.nightly`).map((s) => s.cron),
    ).toEqual(["TZ=UTC 15 * * * *"]);
    expect(replaced.status.provider.id).not.toBe(scheduled.status.provider.id);

    // one failure: recorded as attempt 1 and retried after the backoff (a status write lost to the
    // finalizer's resourceVersion once made the retry immediate, so the failure was never seen)
    vertex.failNext(1, 14, "createPipelineJob");
    await create(types.run, ns, "flaky", { provider: "vertex", pipeline: "train" });
    const failed: Any = await eventually(
      "Run flaky Failed",
      () => api.get(types.run, ns, "flaky"),
      (r: Any) => r?.status?.state === "Failed",
    );
    expect(condition(failed, "Synchronized").message).toMatch(
      /^create failed \(attempt 1\): Vertex AI at 127\.0\.0\.1: CreatePipelineJob: 14 UNAVAILABLE: injected failure; retrying in 5s$/,
    );
    await synced(types.run, ns, "flaky");

    for (const name of ["ok", "bad", "flaky"]) await api.delete(types.run, ns, name);
    await api.delete(types.runSchedule, ns, "nightly");
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

  it("a location Vertex does not know → Ready=False naming the endpoint and the error", async () => {
    const ns = await testNamespace("vtx");
    const notReady: Any = await readyProvider(ns, vertexSpec("us-central1"), "False");
    expect(condition(notReady, "Ready").message).toMatch(
      /^Vertex AI at 127\.0\.0\.1: GetLocation projects\/slipway-test\/locations\/us-central1: 5 NOT_FOUND: location .* not found$/,
    );
    expect(outbound.outside()).toEqual([]);
  });
});
