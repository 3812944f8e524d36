/**
 * Run-completion events on the real control plane, delivered to real CloudEvents sinks on 127.0.0.1
 * (each request parsed by the SDK's own HTTP parser). Argo's controller does not run here: the test
 * writes a Workflow's final status as it would (see docs/pipelines.md).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pipelineKinds } from "../../../src/apis/pipelines/index.ts";
import type { Manager } from "../../../src/kube/manager.ts";
import { types } from "../../../src/pipelines/types.ts";
import { adminConfig, eventually, isOwnNamespace, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { Api, installArgoCrds, startPipelinesOperator } from "../../support/fakes/pipelines-operator.ts";
import { reconcileCounter, reconciledAndIdle, trackReconciles } from "../../support/reconciles.ts";
import { acknowledged, type EventSinkServer, startEventSink } from "./event-sink.ts";
import {
  createPipeline,
  createProvider,
  createRun,
  finishWorkflow,
  group,
  modelOutput,
  succeededRunData,
  synchronizedRun,
} from "./event-support.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

let api: Api;
let operator: Manager;
let operatorSink: EventSinkServer;
const sinks: EventSinkServer[] = [];

beforeAll(async () => {
  api = new Api(adminConfig());
  await installCrds(pipelineKinds);
  await installArgoCrds(api);
  operatorSink = await startEventSink();
  operator = await startPipelinesOperator(adminConfig(), {
    serves: isOwnNamespace,
    // its sinks listen on 127.0.0.1: the operator's outbound policy must allow it (SLIPWAY_OUTBOUND_ALLOW)
    outbound: { allow: ["127.0.0.1"] },
    run: { defaultTtlSeconds: 3600, completionPollSeconds: 1 },
    events: {
      sinks: [{ url: operatorSink.url }],
      retry: { baseMs: 100, maxMs: 400, maxAttempts: 5 },
      timeoutMs: 5_000,
    },
  });
});

afterAll(async () => {
  await operator?.stop();
  api?.close();
  await Promise.all([operatorSink, ...sinks].map((sink) => sink?.close()));
});

async function sink(behaviour: Parameters<typeof startEventSink>[0] = {}) {
  const started = await startEventSink(behaviour);
  sinks.push(started);
  return started;
}

const idsOf = (server: EventSinkServer) => acknowledged(server).map((r) => r.event.id);

describe("run-completion events", () => {
  it("Succeeded and Failed runs: once to each healthy sink; a sink failing 3× gets the same id; a slow sink delays no other; one that keeps failing is reported, not blocking", async () => {
    const ns = await testNamespace("ev");
    const runs = trackReconciles(operator, "run");
    const slow = await sink({ delayMs: 3_000 });
    const healthy = await sink();
    const flaky = await sink({ failFirst: 3 });
    const broken = await sink({ always: 503 });
    const runSink = await sink();
    // the slow sink first: sent one after the other, it would hold the others back
    await createProvider(api, ns, {
      eventSinks: [slow, healthy, flaky, broken].map((s) => ({ url: s.url })),
    });
    await createPipeline(api, ns, "train");
    await createRun(api, ns, "ok", {
      artifacts: [{ name: "model", path: "train:model" }],
      eventSinks: [{ url: runSink.url }],
    });
    const ok = await synchronizedRun(api, ns, "ok");
    await finishWorkflow(api, ns, ok.status.provider.id, "Succeeded", modelOutput);
    const done: Any = await eventually(
      "Run ok: every sink settled",
      () => api.get(types.run, ns, "ok"),
      (r: Any) => r?.status?.events?.[0]?.sinks?.every((s: Any) => s.delivered || s.failed),
    );
    const [record] = done.status.events;
    const bySink = Object.fromEntries(record.sinks.map((s: Any) => [s.sink, s]));
    expect(bySink[healthy.url]).toMatchObject({ delivered: true, attempts: 1 });
    expect(bySink[slow.url]).toMatchObject({ delivered: true, attempts: 1 });
    expect(bySink[flaky.url]).toMatchObject({ delivered: true, attempts: 4 });
    expect(bySink[broken.url]).toMatchObject({
      delivered: false,
      failed: true,
      attempts: 5,
      lastError: "HTTP 503 Service Unavailable",
    });
    expect(bySink[runSink.url]).toMatchObject({ delivered: true });
    expect(bySink[operatorSink.url]).toMatchObject({ delivered: true });
    expect(done.status.conditions.find((c: Any) => c.type === "EventsDelivered")).toMatchObject({
      status: "False",
      reason: "SinkFailed",
      message: expect.stringContaining(`to ${broken.url}: gave up after 5 attempt(s)`),
    });

    const [event] = acknowledged(healthy);
    expect(event?.event).toMatchObject({
      specversion: "1.0",
      type: "dev.slipway.pipelines.run-completion",
      id: record.id,
    });
    expect(event?.event.data).toEqual(succeededRunData(ns, "ok", ok.status.provider.id));
    expect(flaky.received.map((r) => [r.event.id, r.status])).toEqual([
      [record.id, 503],
      [record.id, 503],
      [record.id, 503],
      [record.id, 202],
    ]);
    // delivered while the slow sink still held its request (an order of events, not a duration)
    const slowAnswer = slow.received[0]?.answeredAt;
    expect(slowAnswer).toBeDefined();
    expect(event?.at).toBeLessThan(slowAnswer ?? 0);

    await createRun(api, ns, "bad", {});
    const bad = await synchronizedRun(api, ns, "bad");
    await finishWorkflow(api, ns, bad.status.provider.id, "Failed");
    const failed: Any = await eventually(
      "Run bad: delivered to the healthy sink",
      () => api.get(types.run, ns, "bad"),
      (r: Any) => r?.status?.events?.[0]?.sinks?.find((s: Any) => s.sink === healthy.url)?.delivered,
    );
    expect(
      acknowledged(healthy).find((r) => r.event.id === failed.status.events[0].id)?.event.data,
    ).toMatchObject({
      run: { namespace: ns, name: "bad" },
      status: "Failed",
    });
    // the reconciles after the deliveries' status writes are done (a completed Run comes back only
    // for its TTL, an hour off) and the cache holds those writes: nothing sent twice
    for (const name of ["ok", "bad"])
      await reconciledAndIdle(
        operator,
        "run",
        runs,
        { type: types.run, key: { namespace: ns, name } },
        { idleBeyondMs: 60_000 },
      );
    expect(idsOf(healthy)).toEqual([record.id, failed.status.events[0].id]);
    expect(idsOf(operatorSink).filter((id) => id === record.id)).toHaveLength(1);
    expect(healthy.invalid).toEqual([]);
  });

  it("a Run owned by a RunConfiguration names it; a Run is not deleted (its TTL) before its events are delivered", async () => {
    const ns = await testNamespace("ev");
    const late = await sink({ failFirst: 2 });
    await createProvider(api, ns, { eventSinks: [{ url: late.url }] });
    await createPipeline(api, ns, "train");
    await api.create(types.runConfiguration, {
      apiVersion: group,
      kind: "RunConfiguration",
      metadata: { name: "nightly", namespace: ns },
      spec: { provider: "argo", run: { pipeline: "train" }, triggers: { onChange: ["runSpec"] } },
    });
    const [owned] = await eventually(
      "the RunConfiguration's Run synchronized",
      () => api.list<Any>(types.run, ns),
      (l) => l.length === 1 && l[0].status?.state === "Succeeded",
    );
    await createRun(api, ns, "short", { ttlSecondsAfterCompletion: 0 });
    const short = await synchronizedRun(api, ns, "short");
    await finishWorkflow(api, ns, owned.status.provider.id, "Succeeded");
    await finishWorkflow(api, ns, short.status.provider.id, "Succeeded");
    await eventually(
      "the Run with TTL 0 deleted",
      () => api.get(types.run, ns, "short"),
      (r) => r === undefined,
    );
    await eventually(
      "both events acknowledged",
      async () => acknowledged(late),
      (l) => l.length === 2,
    );
    const data = Object.fromEntries(
      acknowledged(late).map((r) => [(r.event.data as Any)?.run?.name, r.event.data]),
    );
    expect(data[owned.metadata.name]).toMatchObject({ runConfiguration: { namespace: ns, name: "nightly" } });
    expect(data.short).toMatchObject({ run: { namespace: ns, name: "short" }, status: "Succeeded" });
    expect(data.short).not.toHaveProperty("runConfiguration");
    expect(late.received.filter((r) => r.status === 503)).toHaveLength(2);
  });

  it("runs a schedule starts (Argo CronWorkflow's Workflows), Succeeded and Failed, each delivered once, none missed", async () => {
    const ns = await testNamespace("ev");
    const healthy = await sink();
    await createProvider(api, ns, { eventSinks: [{ url: healthy.url }] });
    await createPipeline(api, ns, "train");
    await api.create(types.runConfiguration, {
      apiVersion: group,
      kind: "RunConfiguration",
      metadata: { name: "hourly", namespace: ns },
      spec: {
        provider: "argo",
        run: { pipeline: "train" },
        triggers: { schedules: [{ cronExpression: "0 * * * *" }] },
      },
    });
    const [schedule] = await eventually(
      "the RunSchedule synchronized",
      () => api.list<Any>(types.runSchedule, ns),
      (l) => l.length === 1 && l[0].status?.state === "Succeeded",
    );
    const cron: Any = await api.get(types.cronWorkflow, ns, schedule.status.provider.id);
    expect(cron.spec).toMatchObject({ successfulJobsHistoryLimit: 50, failedJobsHistoryLimit: 50 });
    /** A Workflow as Argo's cron controller starts it, finished with `phase`. */
    const scheduled = async (suffix: string, phase: "Succeeded" | "Failed") => {
      const name = `${cron.metadata.name}-${suffix}`;
      await api.create(types.workflow, {
        apiVersion: "argoproj.io/v1alpha1",
        kind: "Workflow",
        metadata: {
          name,
          namespace: ns,
          labels: {
            ...cron.spec.workflowMetadata.labels,
            "workflows.argoproj.io/cron-workflow": cron.metadata.name,
          },
          ownerReferences: [
            {
              apiVersion: "argoproj.io/v1alpha1",
              kind: "CronWorkflow",
              name: cron.metadata.name,
              uid: cron.metadata.uid,
              controller: true,
            },
          ],
        },
        spec: cron.spec.workflowSpec,
      });
      await finishWorkflow(api, ns, name, phase);
      return name;
    };
    const first = [await scheduled("1000", "Succeeded"), await scheduled("2000", "Failed")];
    await eventually(
      "two scheduled completions delivered",
      async () => acknowledged(healthy),
      (l) => l.length === 2,
    );
    const later = await scheduled("3000", "Succeeded");
    await eventually(
      "the third delivered",
      async () => acknowledged(healthy),
      (l) => l.length === 3,
    );
    const data = acknowledged(healthy).map((r) => r.event.data as Any);
    const pairs = (list: Any[]) => list.map((d) => `${d.runId} ${d.status}`).sort();
    expect(pairs(data.slice(0, 2))).toEqual([`${first[0]} Succeeded`, `${first[1]} Failed`].sort());
    expect(data[2]).toMatchObject({ runId: later, status: "Succeeded" });
    for (const d of data) {
      expect(d).toMatchObject({
        provider: { namespace: ns, name: "argo" },
        runSchedule: { namespace: ns, name: schedule.metadata.name },
        runConfiguration: { namespace: ns, name: "hourly" },
      });
    }
    const recorded: Any = await eventually(
      "the RunSchedule's events delivered",
      () => api.get(types.runSchedule, ns, schedule.metadata.name),
      (s: Any) => s.status?.events?.length === 3 && s.status.events.every((e: Any) => e.sinks[0].delivered),
    );
    expect(new Set(recorded.status.events.map((e: Any) => e.id)).size).toBe(3);
    const marked: Any = await api.get(types.workflow, ns, later);
    expect(marked.metadata.annotations["pipelines.slipway.dev/completion-recorded"]).toBe("true");
    // two more polls of the RunSchedule: nothing reported twice
    const polls = reconcileCounter(operator, "runschedule");
    await eventually(
      "two more polls",
      async () => polls(ns, schedule.metadata.name),
      (n) => n >= 2,
    );
    expect(acknowledged(healthy)).toHaveLength(3);
  });
});
