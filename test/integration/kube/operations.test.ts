import { EventsV1Api, KubernetesObjectApi } from "@kubernetes/client-node";
import pino from "pino";
import { Counter, Registry } from "prom-client";
import { beforeAll, expect, onTestFinished, test } from "vitest";
import { KubeClient } from "../../../src/kube/client.ts";
import { ResourceTypes } from "../../../src/kube/discovery.ts";
import { KubeEventRecorder } from "../../../src/kube/events.ts";
import { Manager } from "../../../src/kube/manager.ts";
import { RestClient } from "../../../src/kube/rest.ts";
import { StatusWriter, staleCopyRetryMs } from "../../../src/kube/status-writer.ts";
import type { ControllerSpec, KubeObject } from "../../../src/kube/types.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { Widget, type WidgetObject, widget, widgetType } from "../../support/test-kind.ts";

beforeAll(() => installCrds([Widget]));

const quiet = pino({ level: "silent" });

test("/metrics carries controller-runtime's names; /healthz and /readyz answer", async () => {
  const namespace = await testNamespace("ops");
  const api = KubernetesObjectApi.makeApiClient(adminConfig());
  let reconciles = 0;
  const manager = new Manager({
    kubeConfig: adminConfig(),
    namespace,
    fieldManager: "ops-test",
    metricsPort: 0,
    healthPort: 0,
    leaderElection: { leaseNamespace: namespace },
    log: quiet,
  });
  const own = new Registry();
  const ownCounter = new Counter({
    name: "counter_widgets_seen_total",
    help: "widgets seen",
    registers: [own],
  });
  manager.add({
    name: "counter",
    for: widgetType,
    permissions: [],
    metrics: own,
    reconcile: async () => {
      reconciles++;
      ownCounter.inc();
      return undefined;
    },
  });
  onTestFinished(() => manager.stop());
  await manager.start();
  await api.create(widget(namespace, "m", 1));
  await eventually(
    "a reconcile",
    async () => reconciles,
    (n) => n >= 1,
  );

  const get = (port: number | undefined, path: string) => fetch(`http://127.0.0.1:${port}${path}`);
  expect((await get(manager.ports.health, "/healthz")).status).toBe(200);
  expect((await get(manager.ports.health, "/readyz")).status).toBe(200);
  const metrics = await (await get(manager.ports.metrics, "/metrics")).text();
  expect(metrics, "a controller's own metrics are served beside the runtime's").toMatch(
    /^counter_widgets_seen_total [1-9]/m,
  );
  expect(metrics).toMatch(
    /^controller_runtime_reconcile_total\{controller="counter",result="success"\} [1-9]/m,
  );
  for (const name of [
    "controller_runtime_reconcile_errors_total",
    "controller_runtime_reconcile_time_seconds_bucket",
    "workqueue_depth",
    "workqueue_adds_total",
    "workqueue_retries_total",
    "workqueue_queue_duration_seconds_bucket",
    "workqueue_work_duration_seconds_bucket",
  ]) {
    expect(metrics).toContain(name);
  }
  expect(metrics).toMatch(/^leader_election_master_status\{name="slipway-operator"\} 1$/m);
  expect(metrics).toMatch(/^rest_client_requests_total\{code="200",method="GET"\} [1-9]/m);
});

test("stop() lets the in-flight reconcile finish and takes no new work", async () => {
  const namespace = await testNamespace("ops");
  const api = KubernetesObjectApi.makeApiClient(adminConfig());
  const started: string[] = [];
  const finished: string[] = [];
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const spec: ControllerSpec = {
    name: "slow",
    for: widgetType,
    permissions: [],
    reconcile: async (key) => {
      started.push(key.name);
      await gate;
      finished.push(key.name);
      return undefined;
    },
  };
  const manager = new Manager({ kubeConfig: adminConfig(), namespace, fieldManager: "ops-test", log: quiet });
  manager.add(spec);
  await manager.start();
  await api.create(widget(namespace, "first", 1));
  await eventually(
    "the first reconcile started",
    async () => started,
    (s) => s.includes("first"),
  );
  const stopping = manager.stop();
  await api.create(widget(namespace, "second", 1));
  // the cache (still watching while the reconcile finishes) saw it: a wrong start would follow at once
  await eventually(
    "the cache has the second widget",
    async () => manager.cache.get(widgetType, { namespace, name: "second" }),
    (object) => object !== undefined,
  );
  release();
  await stopping;
  expect(finished).toEqual(["first"]);
  expect(started).toEqual(["first"]);
  expect(await manager.done).toBe("stopped");
});

test("repeated events are aggregated into one Event with a series", async () => {
  const namespace = await testNamespace("ops");
  const api = KubernetesObjectApi.makeApiClient(adminConfig());
  const created = (await api.create(widget(namespace, "e", 1))) as KubeObject;
  const recorder = new KubeEventRecorder(new RestClient(adminConfig()), {
    controller: "slipway.dev/test",
    instance: "test-1",
    log: quiet,
  });
  for (let i = 0; i < 3; i++) recorder.event(created, "Warning", "Broken", "same message");
  recorder.event(created, "Normal", "Fixed", "another message");
  await recorder.flush();
  const events = (await adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace })).items;
  const broken = events.filter((e) => e.reason === "Broken");
  expect(broken).toHaveLength(1);
  expect(broken[0]?.series?.count).toBe(3);
  expect(broken[0]?.regarding?.uid).toBe(created.metadata?.uid);
  expect(events.filter((e) => e.reason === "Fixed")).toHaveLength(1);
});

test("finalizers added and removed concurrently by several writers all land (conflicts retried)", async () => {
  const namespace = await testNamespace("ops");
  const api = KubernetesObjectApi.makeApiClient(adminConfig());
  await api.create(widget(namespace, "f", 1));
  const rest = new RestClient(adminConfig());
  const clients = Array.from(
    { length: 4 },
    (_, i) => new KubeClient(rest, new ResourceTypes(rest), { fieldManager: `writer-${i}` }),
  );
  const key = { namespace, name: "f" };
  const finalizers = clients.map((_, i) => `test.slipway.dev/f${i}`);
  await Promise.all(
    clients.map((client, i) => client.addFinalizer(widgetType, key, finalizers[i] as string)),
  );
  const read = () =>
    api.read({
      apiVersion: Widget.apiVersion,
      kind: Widget.kind,
      metadata: { name: "f", namespace },
    }) as Promise<WidgetObject>;
  expect([...((await read()).metadata.finalizers ?? [])].sort()).toEqual(finalizers);
  await Promise.all(
    clients.slice(0, 3).map((client, i) => client.removeFinalizer(widgetType, key, finalizers[i] as string)),
  );
  expect((await read()).metadata.finalizers).toEqual([finalizers[3]]);
  await clients[3]?.removeFinalizer(widgetType, key, finalizers[3] as string);
  expect((await read()).metadata.finalizers ?? []).toEqual([]);
});

test("the status writer: nothing sent for an unchanged status; a stale copy is refused and reports nothing", async () => {
  const namespace = await testNamespace("ops");
  const api = KubernetesObjectApi.makeApiClient(adminConfig());
  const created = (await api.create(widget(namespace, "s", 1))) as WidgetObject;
  const patches: string[] = [];
  const rest = new RestClient(adminConfig(), { onRequest: (_code, method) => patches.push(method) });
  const client = new KubeClient(rest, new ResourceTypes(rest), { fieldManager: "status-writer" });
  const recorded: string[] = [];
  const events = { event: (_object: KubeObject, _type: string, reason: string) => recorded.push(reason) };
  const writer = new StatusWriter<{ size: number }>();
  const read = async () =>
    (await api.read({ ...widget(namespace, "s", 1), metadata: { name: "s", namespace } })) as WidgetObject;
  const sized = { type: "Normal" as const, reason: "Sized", message: "" };

  expect(await writer.write({ client, events }, created, { size: 1 }, sized)).toEqual({
    written: true,
    requeueAfterMs: 0,
  });
  expect(recorded).toEqual(["Sized"]);
  // the same status as the copy: nothing to send
  const fresh = await read();
  expect(await writer.write({ client, events }, fresh, { size: 1 }, sized)).toEqual({
    written: false,
    requeueAfterMs: 0,
  });
  expect(patches.filter((m) => m === "PATCH")).toHaveLength(1);

  // computed again from the copy a lagging cache still holds: the API server refuses it, no Event
  const stale = await writer.write({ client, events }, created, { size: 2 }, sized);
  expect(stale).toEqual({ written: false, requeueAfterMs: staleCopyRetryMs, stale: true });
  expect(recorded).toEqual(["Sized"]);
  expect((await read()).status?.size).toBe(1);

  // from the newer copy it is written
  expect((await writer.write({ client, events }, fresh, { size: 2 }, sized)).written).toBe(true);
  expect((await read()).status?.size).toBe(2);
  expect(recorded).toEqual(["Sized", "Sized"]);
  rest.close();
});

test("a controller whose kind is not served does not hold back the others; /readyz says not ready", async () => {
  const namespace = await testNamespace("ops");
  const api = KubernetesObjectApi.makeApiClient(adminConfig());
  const reconciled: string[] = [];
  const manager = new Manager({
    kubeConfig: adminConfig(),
    namespace,
    fieldManager: "ops-test",
    healthPort: 0,
    log: quiet,
  });
  manager.add({
    name: "widgets",
    for: widgetType,
    permissions: [],
    reconcile: async (key) => {
      reconciled.push(key.name);
      return undefined;
    },
  });
  manager.add({
    name: "missing",
    for: {
      group: "missing.slipway.dev",
      version: "v1",
      kind: "Nothing",
      plural: "nothings",
      namespaced: true,
    },
    permissions: [],
    reconcile: async () => undefined,
  });
  onTestFinished(() => manager.stop());
  void manager.start();
  await api.create(widget(namespace, "w", 1));
  await eventually(
    "the widget reconciled",
    async () => reconciled,
    (names) => names.includes("w"),
  );
  expect((await fetch(`http://127.0.0.1:${manager.ports.health}/readyz`)).status).toBe(503);
});
