import {
  CoreV1Api,
  EventsV1Api,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  type V1ConfigMap,
} from "@kubernetes/client-node";
import pino from "pino";
import { beforeAll, describe, expect, onTestFinished, test } from "vitest";
import { setCondition } from "../../../src/kube/conditions.ts";
import { Manager } from "../../../src/kube/manager.ts";
import { ownerReference } from "../../../src/kube/owners.ts";
import { StatusWriter } from "../../../src/kube/status-writer.ts";
import { type ControllerSpec, TerminalError } from "../../../src/kube/types.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { reconciledAndIdle, trackReconciles } from "../../support/reconciles.ts";
import { configMapType, Widget, type WidgetObject, widget, widgetType } from "../../support/test-kind.ts";

beforeAll(() => installCrds([Widget]));

const quiet = pino({ level: "silent" });

/**
 * A Widget controller: a ConfigMap child carrying the size, and status echoing the spec, written
 * with the StatusWriter; `statusWrites` gets the generation of every status write the API server took.
 */
function widgetController(reconciled: string[], statusWrites: number[] = []): ControllerSpec {
  const writer = new StatusWriter<NonNullable<WidgetObject["status"]>>();
  return {
    name: "widget",
    for: widgetType,
    owns: [configMapType],
    permissions: [],
    concurrency: 2,
    async reconcile(key, { cache, client, events }) {
      reconciled.push(`${key.namespace}/${key.name}`);
      const object = cache.get<WidgetObject>(widgetType, key);
      if (!object) return undefined;
      if (object.spec.fail) throw new TerminalError("spec.fail is set");
      if (object.metadata.deletionTimestamp) {
        await client.removeFinalizer(widgetType, key, "test.slipway.dev/cleanup");
        return undefined;
      }
      await client.addFinalizer(widgetType, key, "test.slipway.dev/cleanup");
      const child = cache.get(configMapType, key) as { data?: Record<string, string> } | undefined;
      if (child?.data?.size !== String(object.spec.size)) {
        await client.apply({
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: key.name, namespace: key.namespace, ownerReferences: [ownerReference(object)] },
          data: { size: String(object.spec.size) },
        });
      }
      const generation = object.metadata.generation;
      const status = {
        observedGeneration: generation,
        size: object.spec.size,
        conditions: setCondition(
          object.status?.conditions as never,
          { type: "Ready", status: "True", reason: "Reconciled", message: "size copied" },
          generation,
        ),
      };
      const event = { type: "Normal", reason: "Reconciled", message: `size ${object.spec.size}` } as const;
      const result = await writer.write({ client, events }, object, status, event);
      if (result.written) statusWrites.push(generation ?? 0);
      if (result.requeueAfterMs > 0) return { requeueAfterMs: result.requeueAfterMs };
      return undefined;
    },
  };
}

/** The manager's requests so far that write (every method but GET, which lists and watches too). */
async function writesByMethod(manager: Manager): Promise<Record<string, number>> {
  const { GET: _reads, ...writes } = await manager.metrics.requestsByMethod();
  return writes;
}

/** What `after` counts more than `before`, per method (methods with no more left out). */
function since(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([method, count]) => [method, count - (before[method] ?? 0)] as const)
      .filter(([, more]) => more > 0),
  );
}

const readWidget = (api: KubernetesObjectApi, namespace: string, name: string) =>
  api.read({
    apiVersion: Widget.apiVersion,
    kind: Widget.kind,
    metadata: { name, namespace },
  }) as Promise<WidgetObject>;

async function startManager(namespace: string, spec: ControllerSpec, log = quiet): Promise<Manager> {
  const manager = new Manager({
    kubeConfig: adminConfig(),
    namespace,
    fieldManager: "widget-test",
    log,
  });
  manager.add(spec);
  onTestFinished(() => manager.stop());
  await manager.start();
  return manager;
}

describe("a controller on the real API server", () => {
  test("converges: child with owner reference, status once per generation, finalizer, events", async () => {
    const namespace = await testNamespace("rt");
    const api = KubernetesObjectApi.makeApiClient(adminConfig());
    const core = adminConfig().makeApiClient(CoreV1Api);
    const reconciled: string[] = [];
    const statusWrites: number[] = [];
    const manager = await startManager(namespace, widgetController(reconciled, statusWrites));
    const tracker = trackReconciles(manager, "widget");
    await api.create(widget(namespace, "a", 3));

    const ready = await eventually(
      "widget a reconciled",
      () => readWidget(api, namespace, "a"),
      (w) => w.status?.size === 3 && (w.metadata.finalizers ?? []).includes("test.slipway.dev/cleanup"),
    );
    expect(ready.status?.conditions?.[0]).toMatchObject({
      type: "Ready",
      status: "True",
      observedGeneration: 1,
    });
    const child = await core.readNamespacedConfigMap({ name: "a", namespace });
    expect(child.data).toEqual({ size: "3" });
    expect(child.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: "Widget",
      uid: ready.metadata.uid,
      controller: true,
    });

    // a spec change is a new generation
    await api.patch(
      { ...widget(namespace, "a", 5) },
      undefined,
      undefined,
      "tester",
      true,
      "application/apply-patch+yaml" as never,
    );
    await eventually(
      "size 5",
      () => readWidget(api, namespace, "a"),
      (w) => w.status?.size === 5,
    );
    await eventually(
      "child updated",
      () => core.readNamespacedConfigMap({ name: "a", namespace }),
      (c) => c.data?.size === "5",
    );

    // deleting the child (an owned kind) brings the owner back to recreate it: one request, the
    // child's apply (the status is unchanged, the finalizer already there)
    const widgetA = { type: widgetType, key: { namespace, name: "a" } };
    const childA = { type: configMapType, key: { namespace, name: "a" } };
    await reconciledAndIdle(manager, "widget", tracker, widgetA, { related: [childA] });
    const writesBefore = await writesByMethod(manager);
    await core.deleteNamespacedConfigMap({ name: "a", namespace });
    await eventually(
      "child recreated",
      () => core.readNamespacedConfigMap({ name: "a", namespace }),
      (c) => c.data?.size === "5",
    );
    await reconciledAndIdle(manager, "widget", tracker, widgetA, { related: [childA] });
    expect(since(writesBefore, await writesByMethod(manager))).toEqual({ PATCH: 1 });

    const events = adminConfig().makeApiClient(EventsV1Api);
    const list = await eventually(
      "events",
      () => events.listNamespacedEvent({ namespace }),
      (l) => l.items.filter((e) => e.reason === "Reconciled").length >= 2,
    );
    expect(list.items.find((e) => e.reason === "Reconciled")?.regarding?.uid).toBe(ready.metadata.uid);
    // the finalizer, the child's update and its re-creation each reconciled the widget again, but
    // its status was written once for each of its two generations, and each write's Event once
    expect(reconciled.length).toBeGreaterThan(statusWrites.length);
    expect(statusWrites).toEqual([1, 2]);
    const reconciledEvents = list.items.filter((e) => e.reason === "Reconciled");
    expect(reconciledEvents.map((e) => [e.note, e.series?.count]).sort()).toEqual([
      ["size 3", undefined],
      ["size 5", undefined],
    ]);

    // deletion: the finalizer is removed and the object goes away
    await api.delete(widget(namespace, "a", 0));
    await eventually(
      "widget a deleted",
      () => api.list(Widget.apiVersion, Widget.kind, namespace) as Promise<{ items: unknown[] }>,
      (l) => l.items.length === 0,
    );
  });

  test("a terminal error is not retried, and is logged as JSON with controller, key and reconcile id", async () => {
    const namespace = await testNamespace("rt");
    const api = KubernetesObjectApi.makeApiClient(adminConfig());
    const reconciled: string[] = [];
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: "error" }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const manager = await startManager(namespace, widgetController(reconciled), log);
    await api.create({ ...widget(namespace, "bad", 1), spec: { size: 1, fail: true } });
    await eventually(
      "one failed reconcile",
      async () => reconciled.length,
      (n) => n >= 1,
    );
    // a retry would be queued or delayed (a backoff starts at 5 ms): the queue holds nothing at all
    const queue = manager.controller("widget")?.queue;
    await eventually(
      "the widget queue empty, nothing delayed",
      async () => ({ queued: queue?.length, inFlight: queue?.inFlight.size, delayed: queue?.delayed }),
      (q) => q.queued === 0 && q.inFlight === 0 && q.delayed === 0,
    );
    expect(reconciled).toEqual([`${namespace}/bad`]);
    const errors = await manager.metrics.reconcileErrors.get();
    expect(errors.values[0]?.value).toBe(1);
    expect(lines).toEqual([
      expect.objectContaining({
        controller: "widget",
        key: `${namespace}/bad`,
        reconcileID: expect.stringMatching(/^[0-9a-f-]{36}$/),
        err: "spec.fail is set",
      }),
    ]);
  });

  test("a type with a field selector caches only the objects it selects", async () => {
    const namespace = await testNamespace("rt");
    const core = adminConfig().makeApiClient(CoreV1Api);
    const configMap = (name: string) =>
      core.createNamespacedConfigMap({ namespace, body: { metadata: { name } } });
    await configMap("other");
    await configMap("chosen");
    const chosenType = { ...configMapType, fieldSelector: "metadata.name=chosen" };
    const enqueued: string[] = [];
    const manager = await startManager(namespace, {
      name: "selected",
      for: widgetType,
      watches: [
        {
          type: chosenType,
          map: (object) => {
            enqueued.push(object.metadata?.name ?? "");
            return [];
          },
        },
      ],
      permissions: [],
      reconcile: async () => undefined,
    });
    const names = () => manager.cache.list(chosenType).map((object) => object.metadata?.name);
    expect(names()).toEqual(["chosen"]);
    expect(() => manager.cache.list(configMapType)).toThrow(/not cached/);
    await configMap("other-2");
    await core.replaceNamespacedConfigMap({
      namespace,
      name: "chosen",
      body: { metadata: { name: "chosen" }, data: { a: "1" } },
    });
    await eventually(
      "the change of the chosen ConfigMap",
      async () => manager.cache.get<V1ConfigMap>(chosenType, { namespace, name: "chosen" }),
      (object) => object?.data?.a === "1",
    );
    expect(names()).toEqual(["chosen"]);
    expect(new Set(enqueued)).toEqual(new Set(["chosen"]));
  });
  test("a type with a label selector caches only the objects it selects, and drops one that stops matching", async () => {
    const namespace = await testNamespace("rt");
    const core = adminConfig().makeApiClient(CoreV1Api);
    const labelled = (labels: Record<string, string>) => ({ metadata: { labels } });
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "plain" } } });
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: "mine", ...labelled({ "owner.test/by": "me" }).metadata } },
    });
    const mineType = { ...configMapType, labelSelector: "owner.test/by=me" };
    const manager = await startManager(namespace, {
      name: "labelled",
      for: widgetType,
      watches: [{ type: mineType, map: () => [] }],
      permissions: [],
      reconcile: async () => undefined,
    });
    const names = () =>
      manager.cache
        .list(mineType)
        .map((object) => object.metadata?.name)
        .sort();
    expect(names()).toEqual(["mine"]);
    expect(() => manager.cache.list(configMapType)).toThrow(/not cached/);
    const relabel = (name: string, value: string) =>
      core.patchNamespacedConfigMap(
        { namespace, name, body: labelled({ "owner.test/by": value }) },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
    await relabel("plain", "me");
    await eventually(
      "the newly labelled ConfigMap cached",
      async () => names(),
      (list) => list.length === 2,
    );
    await relabel("mine", "someone-else");
    await eventually(
      "the ConfigMap whose label stopped matching dropped",
      async () => names(),
      (list) => list.join() === "plain",
    );
  });
});
