/**
 * The kfp backend's full state machine against the test KFP API server (test/support/fakes/kfp-server.py):
 * every request and response body it sees is checked against the official kfp-server-api models,
 * uploaded IR is parsed into kfp's PipelineSpec, and a run's parameters against the version's inputs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventType } from "../../../src/kube/runtime-types.ts";
import { finalizer, types } from "../../../src/pipelines/types.ts";
import { skipFor } from "../../support/allowed-skips.ts";
import { eventually, testNamespace } from "../../support/cluster.ts";
import { type KfpServer, kfpPython, setupScript, startKfpServer } from "../../support/fakes/kfp-server.ts";
import { condition, pipelinesTestbed } from "../../support/pipelines-testbed.ts";
import { startEventSink } from "./event-sink.ts";
import { scheduledEventsOnce } from "./event-support.ts";
import { type ConfigMapWatch, renderProviders, watchConfigMaps } from "./support.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

const python = kfpPython();
const token = "kfp-token-7f3a9c";
const secretType = { group: "", version: "v1", kind: "Secret", plural: "secrets", namespaced: true };

// its Providers name the ServiceAccount `pipeline-runner`, which the operator must allow; its KFP
// servers listen on 127.0.0.1, which the operator's outbound policy must allow
const bed = pipelinesTestbed(python !== undefined, ["*/pipeline-runner"], { allow: ["127.0.0.1"] });
const { create, synced } = bed;
let kfp: KfpServer;
let other: KfpServer;
let configMaps: ConfigMapWatch | undefined;

async function namespace(): Promise<string> {
  const ns = await testNamespace("kfp");
  configMaps = await watchConfigMaps(bed.api, [ns]);
  await bed.api.create(secretType, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "kfp", namespace: ns },
    stringData: { token, wrong: "not-the-token" },
  });
  return ns;
}

/** The test ends with: no ConfigMap, no body the models refuse, every call authorized, no token in a status or Event. */
async function expectClean(ns: string, servers: KfpServer[] = [kfp]) {
  expect(await configMaps?.stop()).toEqual([]);
  for (const server of servers) {
    expect((await server.state()).violations).toEqual([]);
    expect((await server.requests()).filter((r) => !r.authorized)).toEqual([]);
  }
  const written = JSON.stringify([
    ...(await bed.api.list(types.pipeline, ns)),
    ...(await bed.api.list(types.run, ns)),
    ...(await bed.api.list(types.runSchedule, ns)),
    ...(await bed.api.list(types.provider, ns)),
    ...(await bed.api.list(eventType, ns)),
  ]);
  expect(written).not.toContain(token);
}

const kfpSpec = (server: KfpServer, key = "token") => ({
  type: "kfp",
  serviceAccount: "pipeline-runner",
  pipelineRootStorage: "gs://bucket/root",
  parameters: { endpoint: server.endpoint, auth: { bearerTokenSecret: { name: "kfp", key } } },
});

async function provider(ns: string, spec: Any, name = "kfp", ready = "True") {
  const [rendered] = await renderProviders(ns, { [name]: spec });
  await bed.api.create(types.provider, rendered as Any);
  return eventually(
    `Provider ${name} Ready=${ready}`,
    () => bed.api.get(types.provider, ns, name),
    (p) => condition(p, "Ready")?.status === ready,
  );
}

const pipelineSpec = (provider: string, epochs = "1") => ({
  provider,
  image: "registry.example/ml/pipeline:1",
  parameters: [
    { name: "dataset", default: "gs://data/default" },
    { name: "epochs", default: "3" },
  ],
  steps: [
    {
      name: "prepare",
      args: ["--dataset={{workflow.parameters.dataset}}", "--out={{outputs.artifacts.examples.path}}"],
      outputs: { artifacts: [{ name: "examples" }] },
    },
    {
      name: "train",
      args: [
        `--epochs={{workflow.parameters.epochs}}`,
        `--seed=${epochs}`,
        "--data={{inputs.artifacts.data.path}}",
      ],
      inputs: { artifacts: [{ name: "data", from: { step: "prepare", output: "examples" } }] },
      dependsOn: ["prepare"],
      retry: { limit: 3, backoff: { duration: "10s", factor: 2 } },
    },
  ],
});

const kfpObjects = async (server: KfpServer, table: string) =>
  Object.values((await server.state())[table]) as Any[];

beforeAll(async () => {
  if (!python) return;
  [kfp, other] = await Promise.all([startKfpServer(python, { token }), startKfpServer(python, { token })]);
}, 120_000);

afterAll(async () => {
  await Promise.all([kfp?.stop(), other?.stop()]);
});

describe(
  "the kfp backend (test KFP server)",
  skipFor(python ? "" : `no kfp venv: run ${setupScript}`),
  () => {
    it("Ready only when KFP answered this configuration; resources wait for a Provider that is not Ready", async () => {
      const ns = await namespace();
      const noEndpoint: Any = await provider(ns, { type: "kfp", parameters: {} }, "broken", "False");
      expect(condition(noEndpoint, "Ready").message).toBe(
        "spec.parameters.endpoint: Expected required property",
      );

      const wrong: Any = await provider(ns, kfpSpec(kfp, "wrong"), "kfp", "False");
      expect(condition(wrong, "Ready").message).toBe(
        `KFP at ${kfp.endpoint}: GET /apis/v2beta1/pipelines → 401 Unauthorized`,
      );
      // KFP's answer (its body) is never copied into the status or an Event: the endpoint is the tenant's choice
      const warnings = await eventually(
        "the Warning Event",
        async () => JSON.stringify(await bed.api.list(eventType, ns)),
        (text) => text.includes("→ 401 Unauthorized"),
      );
      expect(warnings).not.toContain("no valid bearer token");
      await create(types.pipeline, ns, "train", pipelineSpec("kfp"));
      const waiting: Any = await eventually(
        "the Pipeline waits for the Provider",
        () => bed.api.get(types.pipeline, ns, "train"),
        (p: Any) => condition(p, "ProviderAccepted")?.reason === "ProviderNotReady",
      );
      expect(condition(waiting, "ProviderAccepted").message).toBe(
        `spec.provider: Provider ${ns}/kfp is not Ready: ${condition(wrong, "Ready").message}`,
      );
      expect((await kfpObjects(kfp, "pipelines")).filter((p) => p.display_name === `${ns}.train`)).toEqual(
        [],
      );

      // the right key: Ready for the new generation, and the Pipeline goes ahead (the Provider is watched)
      await bed.api.mergePatch(types.provider, ns, "kfp", { spec: { parameters: kfpSpec(kfp).parameters } });
      await eventually(
        "Provider Ready",
        () => bed.api.get(types.provider, ns, "kfp"),
        (p: Any) =>
          condition(p, "Ready")?.status === "True" && condition(p, "Ready").observedGeneration === 2,
      );
      await synced(types.pipeline, ns, "train");
      await expectClean(ns);
    });

    it("Pipeline → pipeline + a version per Slipway version; Experiment; Run → run of that version; completion; deletes", async () => {
      const ns = await namespace();
      const ready: Any = await provider(ns, kfpSpec(kfp));
      expect(condition(ready, "Ready").message).toBe(`KFP at ${kfp.endpoint} answered`);
      await create(types.pipeline, ns, "train", pipelineSpec("kfp"));
      const first: Any = await synced(types.pipeline, ns, "train");
      expect(first.metadata.finalizers).toContain(finalizer);
      const [pipelineId, firstVersion] = first.status.provider.id.split("/");
      const pipeline = (await kfp.state()).pipelines[pipelineId];
      expect(pipeline).toMatchObject({
        display_name: `${ns}.train`,
        description: `Slipway Pipeline ${ns}/train`,
      });
      const version = (await kfp.state()).versions[firstVersion];
      expect(version.display_name).toBe(first.status.version);
      expect(version.pipeline_spec.pipelineInfo.name).toBe("train");
      expect(Object.keys(version.pipeline_spec.root.dag.tasks).sort()).toEqual(["prepare", "train"]);
      // the server parsed it into kfp's PipelineSpec (expectClean: no violation), with the output wired to the input
      expect(version.pipeline_spec.root.dag.tasks.train.inputs.artifacts).toEqual({
        data: { taskOutputArtifact: { outputArtifactKey: "examples", producerTask: "prepare" } },
      });
      expect(version.pipeline_spec.root.dag.tasks.train.retryPolicy).toEqual({
        maxRetryCount: 3,
        backoffDuration: "10s",
        backoffFactor: 2,
        backoffMaxDuration: "3600s",
      });

      await bed.api.mergePatch(types.pipeline, ns, "train", {
        spec: { steps: pipelineSpec("kfp", "2").steps },
      });
      const second: Any = await synced(types.pipeline, ns, "train", 2);
      const [samePipeline, secondVersion] = second.status.provider.id.split("/");
      expect(samePipeline).toBe(pipelineId);
      expect(secondVersion).not.toBe(firstVersion);
      const versions = (await kfpObjects(kfp, "versions")).filter((v) => v.pipeline_id === pipelineId);
      expect(versions.map((v) => v.display_name).sort()).toEqual(
        [first.status.version, second.status.version].sort(),
      );

      await create(types.experiment, ns, "tuning", { provider: "kfp", description: "learning rates" });
      const experiment: Any = await synced(types.experiment, ns, "tuning");
      await create(types.run, ns, "ok", {
        provider: "kfp",
        pipeline: "train",
        experimentName: "tuning",
        parameters: [{ name: "epochs", value: "7" }],
        artifacts: [{ name: "model", path: "train:model" }],
      });
      await create(types.run, ns, "bad", { provider: "kfp", pipeline: "train" });
      const ok: Any = await synced(types.run, ns, "ok");
      const run = (await kfp.state()).runs[ok.status.provider.id];
      expect(run).toMatchObject({
        display_name: `${ns}.ok`,
        experiment_id: experiment.status.provider.id,
        pipeline_version_reference: { pipeline_id: pipelineId, pipeline_version_id: secondVersion },
        runtime_config: { parameters: { epochs: 7 }, pipeline_root: "gs://bucket/root" },
        service_account: "pipeline-runner",
      });
      const bad: Any = await synced(types.run, ns, "bad");
      // one KFP run per Run, whatever copies of it were reconciled (KFP does not create by name)
      const runNames = (await kfpObjects(kfp, "runs"))
        .map((r) => r.display_name)
        .filter((n) => n.startsWith(`${ns}.`));
      expect(runNames.sort()).toEqual([`${ns}.bad`, `${ns}.ok`]);

      // KFP's run details (V2beta1PipelineTaskDetail): the root DAG's task besides one per step
      const task = (name: string, state: string, from: string, to?: string, more: Any = {}) => ({
        display_name: name,
        task_id: `${name}-${state}`,
        state,
        start_time: `2026-01-01T00:00:${from}Z`,
        ...(to ? { end_time: `2026-01-01T00:00:${to}Z` } : {}),
        ...more,
      });
      const prepared = task("prepare", "SUCCEEDED", "05", "20", {
        outputs: { examples: { artifact_ids: ["41"] } },
      });
      await kfp.finishRun(ok.status.provider.id, "SUCCEEDED", [
        task("root", "SUCCEEDED", "01", "50"),
        prepared,
        task("train", "SUCCEEDED", "21", "49", { outputs: { model: { artifact_ids: ["42"] } } }),
      ]);
      // while it runs, its steps so far; then it fails in train
      await kfp.finishRun(bad.status.provider.id, "RUNNING", [prepared, task("train", "RUNNING", "21")]);
      const running: Any = await eventually(
        "Run bad's steps so far",
        () => bed.api.get(types.run, ns, "bad"),
        (r: Any) => r.status.steps?.length === 2,
      );
      expect(running.status.steps).toEqual([
        {
          name: "prepare",
          phase: "Succeeded",
          startedAt: "2026-01-01T00:00:05Z",
          finishedAt: "2026-01-01T00:00:20Z",
        },
        { name: "train", phase: "Running", startedAt: "2026-01-01T00:00:21Z" },
      ]);
      const error = { code: 2, message: "the main container exited with code 3" };
      await kfp.finishRun(bad.status.provider.id, "FAILED", [
        prepared,
        task("train", "FAILED", "21", "33", { error }),
      ]);
      const succeeded: Any = await eventually(
        "Run ok completed",
        () => bed.api.get(types.run, ns, "ok"),
        (r: Any) => r.status.completionState !== undefined,
      );
      expect(succeeded.status).toMatchObject({
        completionState: "Succeeded",
        // the Run's own artifact, then every output artifact the Pipeline declares, as <step>:<artifact>
        artifacts: [
          { name: "model", location: "mlmd://artifacts/42" },
          { name: "prepare:examples", location: "mlmd://artifacts/41" },
        ],
        steps: [
          {
            name: "prepare",
            phase: "Succeeded",
            startedAt: "2026-01-01T00:00:05Z",
            finishedAt: "2026-01-01T00:00:20Z",
          },
          {
            name: "train",
            phase: "Succeeded",
            startedAt: "2026-01-01T00:00:21Z",
            finishedAt: "2026-01-01T00:00:49Z",
          },
        ],
      });
      expect(Date.parse(succeeded.status.completedAt)).toBeGreaterThan(0);
      const failed: Any = await eventually(
        "Run bad completed Failed",
        () => bed.api.get(types.run, ns, "bad"),
        (r: Any) => r.status.completionState === "Failed",
      );
      expect(failed.status.steps[1]).toEqual({
        name: "train",
        phase: "Failed",
        startedAt: "2026-01-01T00:00:21Z",
        finishedAt: "2026-01-01T00:00:33Z",
        message: "the main container exited with code 3",
      });
      expect(failed.status.failure).toBe("step train failed: the main container exited with code 3");

      for (const [type, name] of [
        [types.run, "ok"],
        [types.run, "bad"],
        [types.experiment, "tuning"],
        [types.pipeline, "train"],
      ] as const)
        await bed.api.delete(type, ns, name);
      await eventually(
        "every KFP object deleted with its resource",
        async () => [
          ...(await kfpObjects(kfp, "runs")).filter((r) => r.display_name.startsWith(`${ns}.`)),
          ...(await kfpObjects(kfp, "experiments")).filter((e) => e.display_name === `${ns}.tuning`),
          ...(await kfpObjects(kfp, "pipelines")).filter((p) => p.display_name === `${ns}.train`),
          ...((await bed.api.get(types.pipeline, ns, "train")) ? ["the Pipeline"] : []),
        ],
        (left) => left.length === 0,
      );
      await expectClean(ns);
    });

    it("RunSchedule → recurring run (6-field cron, start/end, max concurrency, catch-up); a change replaces it; delete removes it", async () => {
      const ns = await namespace();
      await provider(ns, kfpSpec(kfp));
      await create(types.pipeline, ns, "train", pipelineSpec("kfp"));
      await synced(types.pipeline, ns, "train");
      await create(types.runSchedule, ns, "nightly", {
        provider: "kfp",
        pipeline: "train",
        parameters: [{ name: "dataset", value: "gs://data/nightly" }],
        schedule: {
          cronExpression: "30 2 * * *",
          startTime: "2029-01-01T00:00:00Z",
          endTime: "2030-01-01T00:00:00Z",
        },
        concurrencyPolicy: "Allow",
        maxConcurrency: 3,
        catchUp: true,
      });
      const first: Any = await synced(types.runSchedule, ns, "nightly");
      const recurring = (await kfp.state()).recurringRuns[first.status.provider.id];
      expect(recurring).toMatchObject({
        display_name: `${ns}.nightly`,
        max_concurrency: "3",
        no_catchup: false,
        mode: "ENABLE",
        trigger: {
          cron_schedule: {
            cron: "0 30 2 * * *",
            start_time: "2029-01-01T00:00:00Z",
            end_time: "2030-01-01T00:00:00Z",
          },
        },
        runtime_config: { parameters: { dataset: "gs://data/nightly" } },
      });

      await bed.api.mergePatch(types.runSchedule, ns, "nightly", {
        spec: {
          schedule: { cronExpression: "@hourly" },
          concurrencyPolicy: null,
          catchUp: null,
          maxConcurrency: null,
        },
      });
      const second: Any = await synced(types.runSchedule, ns, "nightly", 2);
      expect(second.status.provider.id).not.toBe(first.status.provider.id);
      const recurringRuns = await kfpObjects(kfp, "recurringRuns");
      const mine = recurringRuns.filter((r) => r.display_name === `${ns}.nightly`);
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({
        max_concurrency: "1",
        no_catchup: true,
        trigger: { cron_schedule: { cron: "@hourly" } },
      });

      await bed.api.delete(types.runSchedule, ns, "nightly");
      await eventually(
        "the recurring run deleted",
        async () =>
          (await kfpObjects(kfp, "recurringRuns")).filter((r) => r.display_name === `${ns}.nightly`),
        (left) => left.length === 0,
      );
      await expectClean(ns);
    });

    it("a schedule edit starts no run again; a failed create or delete of its replacement leaves the live recurring run alone", async () => {
      const ns = await namespace();
      await provider(ns, kfpSpec(kfp));
      await create(types.pipeline, ns, "train", pipelineSpec("kfp"));
      await synced(types.pipeline, ns, "train");
      // a startTime long past: KFP would count intervals (and, catching up, start runs) from it
      await create(types.runSchedule, ns, "hourly", {
        provider: "kfp",
        pipeline: "train",
        schedule: { cronExpression: "0 * * * *", startTime: "2026-01-01T00:00:00Z" },
        catchUp: true,
      });
      const first: Any = await synced(types.runSchedule, ns, "hourly");
      const mine = async () =>
        (await kfpObjects(kfp, "recurringRuns")).filter((r) => r.display_name === `${ns}.hourly`);
      const countsFrom = async (id: string) => Date.parse((await kfp.state()).countsFrom[id]);
      // Forbid (the default): one run at a time; catching up from its creation, not from 2026-01-01
      expect(await mine()).toMatchObject([{ max_concurrency: "1", no_catchup: false }]);
      expect(await countsFrom(first.status.provider.id)).toBeGreaterThanOrEqual(
        Date.parse(first.metadata.creationTimestamp),
      );

      // the new recurring run cannot be created: Failed, the live one left running
      await kfp.failNext(1, 503, { method: "POST", path: "/apis/v2beta1/recurringruns" });
      const editedAt = Date.now() - 1000; // KFP's times are whole seconds
      await bed.api.mergePatch(types.runSchedule, ns, "hourly", {
        spec: { schedule: { cronExpression: "30 * * * *" } },
      });
      const failed: Any = await eventually(
        "RunSchedule hourly Failed",
        () => bed.api.get<Any>(types.runSchedule, ns, "hourly"),
        (r: Any) => r.status?.state === "Failed",
      );
      expect(condition(failed, "Synchronized").message).toBe(
        `update failed (attempt 1): KFP at ${kfp.endpoint}: POST /apis/v2beta1/recurringruns → 503 Service Unavailable; retrying in 5s`,
      );
      expect(failed.status.provider.id).toBe(first.status.provider.id);
      expect((await mine()).map((r) => r.recurring_run_id)).toEqual([first.status.provider.id]);
      // retried: one recurring run, which starts no run due before the edit
      const second: Any = await synced(types.runSchedule, ns, "hourly", 2);
      const [replaced] = await mine();
      expect((await mine()).map((r) => r.recurring_run_id)).toEqual([second.status.provider.id]);
      expect(replaced.trigger.cron_schedule).toEqual({ cron: "0 30 * * * *" });
      expect(await countsFrom(second.status.provider.id)).toBeGreaterThanOrEqual(editedAt);

      // the old one cannot be deleted: the new one goes again, the old one stays the only live one
      const secondId = second.status.provider.id;
      await kfp.failNext(1, 503, { method: "DELETE", path: `/apis/v2beta1/recurringruns/${secondId}` });
      await bed.api.mergePatch(types.runSchedule, ns, "hourly", {
        spec: { schedule: { cronExpression: "45 * * * *" } },
      });
      const undone: Any = await eventually(
        "RunSchedule hourly Failed again",
        () => bed.api.get<Any>(types.runSchedule, ns, "hourly"),
        (r: Any) => r.status?.state === "Failed" && r.status.observedGeneration === 3,
      );
      expect(condition(undone, "Synchronized").message).toBe(
        `update failed (attempt 1): KFP at ${kfp.endpoint}: DELETE /apis/v2beta1/recurringruns/${secondId} → 503 Service Unavailable; retrying in 5s`,
      );
      // disabled while its replacement was made, enabled again
      expect((await mine()).map((r) => [r.recurring_run_id, r.trigger.cron_schedule.cron, r.status])).toEqual(
        [[secondId, "0 30 * * * *", "ENABLED"]],
      );
      const third: Any = await synced(types.runSchedule, ns, "hourly", 3);
      expect((await mine()).map((r) => [r.recurring_run_id, r.trigger.cron_schedule.cron])).toEqual([
        [third.status.provider.id, "0 45 * * * *"],
      ]);

      // a policy KFP cannot honour: refused naming the field, the live recurring run untouched
      await bed.api.mergePatch(types.runSchedule, ns, "hourly", { spec: { concurrencyPolicy: "Replace" } });
      const refused: Any = await eventually(
        "RunSchedule hourly refused",
        () => bed.api.get<Any>(types.runSchedule, ns, "hourly"),
        (r: Any) => r.status?.state === "Failed" && r.status.observedGeneration === 4,
      );
      expect(condition(refused, "Synchronized").message).toBe(
        "update failed (attempt 1): spec.concurrencyPolicy: a KFP recurring run cannot stop a running run (Replace is for argo): use Forbid or Allow; retrying in 5s",
      );
      expect((await mine()).map((r) => r.recurring_run_id)).toEqual([third.status.provider.id]);
      // the old one is disabled before its replacement is created: never two enabled at once
      expect((await kfp.state()).mostEnabled[`${ns}.hourly`]).toBe(1);

      await bed.api.delete(types.runSchedule, ns, "hourly");
      await eventually("the recurring run deleted", mine, (left) => left.length === 0);
      await expectClean(ns);
    });

    it("the runs a recurring run starts, Succeeded and Failed: each completion delivered once to a 127.0.0.1 sink (SDK parser), none missed", async () => {
      const ns = await namespace();
      const sink = await startEventSink();
      try {
        await create(types.provider, ns, "kfp", { ...kfpSpec(kfp), eventSinks: [{ url: sink.url }] });
        await create(types.pipeline, ns, "train", pipelineSpec("kfp"));
        await synced(types.pipeline, ns, "train");
        await create(types.runSchedule, ns, "hourly", {
          provider: "kfp",
          pipeline: "train",
          schedule: { cronExpression: "0 * * * *" },
        });
        const schedule: Any = await synced(types.runSchedule, ns, "hourly");
        const recurringRunId = schedule.status.provider.id;
        // KFP's scheduled-workflow controller starts runs; its persistence agent reports them finished
        const [ok, bad, running] = [
          await kfp.startScheduledRun(recurringRunId),
          await kfp.startScheduledRun(recurringRunId),
          await kfp.startScheduledRun(recurringRunId),
        ];
        await kfp.finishRun(ok.run_id, "SUCCEEDED", undefined, "2026-01-01T01:00:05Z");
        await kfp.finishRun(bad.run_id, "FAILED", undefined, "2026-01-01T02:00:07Z");
        const where = { namespace: ns, provider: "kfp", schedule: "hourly" };
        await scheduledEventsOnce(
          sink,
          { [ok.run_id]: "Succeeded", [bad.run_id]: "Failed" },
          where,
          bed.operator,
        );
        await kfp.finishRun(running.run_id, "CANCELED", undefined, "2026-01-01T03:00:01Z");
        await scheduledEventsOnce(
          sink,
          { [ok.run_id]: "Succeeded", [bad.run_id]: "Failed", [running.run_id]: "Failed" },
          where,
          bed.operator,
        );
        const recorded: Any = await bed.api.get(types.runSchedule, ns, "hourly");
        expect(recorded.status.events.map((e: Any) => e.runId).sort()).toEqual(
          [ok.run_id, bad.run_id, running.run_id].sort(),
        );
        // the list call as sent: by this recurring run's id (other tests' RunSchedules are tracked too)
        const filters = (await kfp.requests())
          .filter((r) => r.method === "GET" && r.path === "/apis/v2beta1/runs")
          .map((r) => JSON.parse(r.query.filter[0]).predicates);
        expect(filters.find((p) => p[0].string_value === recurringRunId)?.[0]).toEqual({
          key: "recurring_run_id",
          operation: "EQUALS",
          string_value: recurringRunId,
        });
        await expectClean(ns);
      } finally {
        await sink.close();
      }
    });

    it("caching: each task's cachingOptions in the version; a Run's own caching runs its own IR (pipeline_spec); status.caching; a maxAge is Failed naming the field", async () => {
      const ns = await namespace();
      await provider(ns, { ...kfpSpec(kfp), defaultCaching: { enabled: true } });
      const cachedSpec = {
        ...pipelineSpec("kfp"),
        steps: pipelineSpec("kfp").steps.map((step) =>
          step.name === "train" ? { ...step, caching: { enabled: false } } : step,
        ),
      };
      await create(types.pipeline, ns, "train", cachedSpec);
      const synchronized: Any = await synced(types.pipeline, ns, "train");
      const [, versionId] = synchronized.status.provider.id.split("/");
      // the server parsed it into kfp's PipelineSpec; protobuf's JSON of the version as sent
      const tasks = (await kfp.state()).versions[versionId].pipeline_spec.root.dag.tasks;
      expect(tasks.prepare.cachingOptions).toEqual({ enableCache: true });
      expect(tasks.train.cachingOptions).toEqual({ enableCache: false });

      await create(types.run, ns, "fresh", {
        provider: "kfp",
        pipeline: "train",
        caching: { enabled: false },
      });
      await create(types.run, ns, "default", { provider: "kfp", pipeline: "train" });
      const fresh: Any = await eventually(
        "Run fresh submitted, its caching recorded",
        () => bed.api.get(types.run, ns, "fresh"),
        (r: Any) => r?.status?.state === "Succeeded" && r.status.caching !== undefined,
      );
      expect(fresh.status.caching).toEqual([
        { step: "prepare", enabled: false },
        { step: "train", enabled: false },
      ]);
      const sent = (await kfp.state()).runs[fresh.status.provider.id];
      expect(sent.pipeline_version_reference).toBeUndefined();
      expect(sent.pipeline_spec.root.dag.tasks.prepare.cachingOptions).toEqual({ enableCache: false });
      expect(sent.runtime_config).toMatchObject({ pipeline_root: "gs://bucket/root" });
      const byDefault: Any = await eventually(
        "Run default submitted, its caching recorded",
        () => bed.api.get(types.run, ns, "default"),
        (r: Any) => r?.status?.state === "Succeeded" && r.status.caching !== undefined,
      );
      expect(byDefault.status.caching).toEqual([
        { step: "prepare", enabled: true },
        { step: "train", enabled: false },
      ]);
      expect((await kfp.state()).runs[byDefault.status.provider.id]).toMatchObject({
        pipeline_version_reference: { pipeline_version_id: versionId },
      });

      // KFP cannot honour a maximum age: the Pipeline says so, naming the field; nothing reaches KFP
      await create(types.pipeline, ns, "aged", {
        ...pipelineSpec("kfp"),
        steps: [{ name: "prepare", caching: { maxAge: "24h" } }],
      });
      const aged: Any = await eventually(
        "Pipeline aged Failed",
        () => bed.api.get(types.pipeline, ns, "aged"),
        (p: Any) => p?.status?.state === "Failed",
      );
      expect(condition(aged, "Synchronized")).toMatchObject({ status: "False" });
      expect(condition(aged, "Synchronized").message).toMatch(
        /spec\.steps\[0\]\.caching\.maxAge: KFP's caching has no maximum age of a reused execution \(argo only\): leave maxAge unset/,
      );
      expect((await kfpObjects(kfp, "pipelines")).filter((p) => p.display_name === `${ns}.aged`)).toEqual([]);

      // the Provider's default changed: a new version with the new IR (not the old one found by its name)
      await bed.api.mergePatch(types.provider, ns, "kfp", { spec: { defaultCaching: { enabled: false } } });
      const resynced: Any = await eventually(
        "Pipeline train at a new version",
        () => bed.api.get(types.pipeline, ns, "train"),
        (p: Any) =>
          p?.status?.state === "Succeeded" && p.status.provider.id !== synchronized.status.provider.id,
      );
      const [, newVersion] = resynced.status.provider.id.split("/");
      const newTasks = (await kfp.state()).versions[newVersion].pipeline_spec.root.dag.tasks;
      expect(newTasks.prepare.cachingOptions).toEqual({ enableCache: false });
      await expectClean(ns);
    });

    it("changing the Provider moves a Pipeline from one KFP to another", async () => {
      const ns = await namespace();
      await provider(ns, kfpSpec(kfp), "first");
      await provider(ns, kfpSpec(other), "second");
      await create(types.pipeline, ns, "train", pipelineSpec("first"));
      await synced(types.pipeline, ns, "train");
      const mine = (server: KfpServer) =>
        kfpObjects(server, "pipelines").then((list) => list.filter((p) => p.display_name === `${ns}.train`));
      expect(await mine(kfp)).toHaveLength(1);
      await bed.api.mergePatch(types.pipeline, ns, "train", { spec: { provider: "second" } });
      const moved: Any = await synced(types.pipeline, ns, "train", 2);
      expect(moved.status.provider.name).toBe(`${ns}/second`);
      expect(await mine(kfp)).toHaveLength(0);
      expect(await mine(other)).toHaveLength(1);
      await expectClean(ns, [kfp, other]);
    });

    it("a KFP failure → Failed with the endpoint and the HTTP status (not KFP's answer), retried with backoff until it succeeds", async () => {
      const ns = await namespace();
      await provider(ns, kfpSpec(kfp));
      await create(types.pipeline, ns, "train", pipelineSpec("kfp"));
      await synced(types.pipeline, ns, "train");
      // the run's create fails once (not whichever request comes next: the operator polls other objects
      // of the file's earlier tests too); the failure is recorded as attempt 1 (its status write is not
      // lost to the finalizer patch)
      await kfp.failNext(1, 503, { method: "POST", path: "/apis/v2beta1/runs" });
      await create(types.run, ns, "flaky", { provider: "kfp", pipeline: "train" });
      const failed: Any = await eventually(
        "Run Failed",
        () => bed.api.get(types.run, ns, "flaky"),
        (r: Any) => r?.status?.state === "Failed",
      );
      expect(condition(failed, "Synchronized").message).toBe(
        `create failed (attempt 1): KFP at ${kfp.endpoint}: POST /apis/v2beta1/runs → 503 Service Unavailable; retrying in 5s`,
      );
      const recovered: Any = await eventually(
        "Run created after the retries",
        () => bed.api.get(types.run, ns, "flaky"),
        (r: Any) => r.status.state === "Succeeded",
        40_000,
      );
      expect(recovered.status.failedAttempts).toBeUndefined();
      // a parameter the Pipeline does not have never reaches KFP: refused naming the field
      await create(types.run, ns, "typo", {
        provider: "kfp",
        pipeline: "train",
        parameters: [{ name: "epoch", value: "1" }],
      });
      const typo: Any = await eventually(
        "Run typo Failed",
        () => bed.api.get(types.run, ns, "typo"),
        (r: Any) => r?.status?.state === "Failed",
      );
      expect(condition(typo, "Synchronized").message).toMatch(
        /^create failed \(attempt 1\): spec.parameters\[epoch\]: Pipeline train has no such parameter; retrying in 5s$/,
      );
      // a retry policy KFP's IR cannot say is never dropped: the Pipeline says so, naming the field
      const always = pipelineSpec("kfp");
      await create(types.pipeline, ns, "always", {
        ...always,
        steps: [always.steps[0], { ...always.steps[1], retry: { limit: 1, policy: "Always" } }],
      });
      const refused: Any = await eventually(
        "Pipeline always Failed",
        () => bed.api.get(types.pipeline, ns, "always"),
        (p: Any) => p?.status?.state === "Failed",
      );
      expect(condition(refused, "Synchronized")).toMatchObject({ status: "False", reason: "Failed" });
      expect(condition(refused, "Synchronized").message).toMatch(
        /^create failed \(attempt 1\): spec.steps\[1\].retry.policy: KFP's IR has no retry policy: the kfp and vertex backends retry only a step that failed \(OnFailure\); Always is for argo; retrying in 5s$/,
      );
      expect((await kfpObjects(kfp, "pipelines")).filter((p) => p.display_name === `${ns}.always`)).toEqual(
        [],
      );
      await expectClean(ns);
    });
  },
);
