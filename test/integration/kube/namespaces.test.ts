import { CoreV1Api, KubernetesObjectApi } from "@kubernetes/client-node";
import pino from "pino";
import { beforeAll, describe, expect, onTestFinished, test } from "vitest";
import { Manager } from "../../../src/kube/manager.ts";
import type { ControllerSpec, KubeObject } from "../../../src/kube/types.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { configMapType, Widget, widget, widgetType } from "../../support/test-kind.ts";

beforeAll(() => installCrds([Widget]));

const namespacesOf = (objects: KubeObject[]) =>
  [...new Set(objects.map((o) => o.metadata?.namespace))].sort();

/** Records the keys it reconciles; reads ConfigMaps from the cache without watching them. */
function recordingController(reconciled: Set<string>): ControllerSpec {
  return {
    name: "recorder",
    for: widgetType,
    reads: [configMapType],
    permissions: [],
    async reconcile(key, { cache }) {
      cache.list(configMapType, { namespace: key.namespace }); // throws if the kind were not cached
      reconciled.add(`${key.namespace}/${key.name}`);
      return undefined;
    },
  };
}

async function startManager(options: { namespaces?: string[] }, reconciled: Set<string>): Promise<Manager> {
  const manager = new Manager({
    kubeConfig: adminConfig(),
    ...options,
    fieldManager: "namespaces-test",
    log: pino({ level: "silent" }),
  });
  manager.add(recordingController(reconciled));
  onTestFinished(() => manager.stop());
  await manager.start();
  return manager;
}

describe("a manager serves the namespaces it is given", () => {
  test("--namespaces a,b: caches and reconciles a's and b's objects, none of c's; later changes in a and b arrive", async () => {
    const [a, b, c] = [await testNamespace("ns-a"), await testNamespace("ns-b"), await testNamespace("ns-c")];
    const api = KubernetesObjectApi.makeApiClient(adminConfig());
    for (const namespace of [a, b, c]) await api.create(widget(namespace, "before", 1));
    const reconciled = new Set<string>();
    const manager = await startManager({ namespaces: [a, b] }, reconciled);

    expect(manager.namespaces).toEqual([a, b]);
    expect(namespacesOf(manager.cache.list(widgetType))).toEqual([a, b].sort());
    for (const namespace of [a, b]) await api.create(widget(namespace, "after", 2));
    await api.create(widget(c, "after", 2));
    await eventually(
      "a's and b's widgets reconciled",
      async () => reconciled,
      (keys) => [a, b].every((ns) => keys.has(`${ns}/before`) && keys.has(`${ns}/after`)),
    );
    expect(namespacesOf(manager.cache.list(widgetType))).toEqual([a, b].sort());
    expect([...reconciled].filter((key) => key.startsWith(`${c}/`))).toEqual([]);
    // a `reads` kind is cached too, for the served namespaces only
    const core = adminConfig().makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: b, body: { metadata: { name: "settings" } } });
    await eventually(
      "b's ConfigMap in the cache",
      async () => manager.cache.get(configMapType, { namespace: b, name: "settings" }),
      (cached) => cached !== undefined,
    );
  });

  test("no namespaces: the whole cluster", async () => {
    const [a, b] = [await testNamespace("all-a"), await testNamespace("all-b")];
    const api = KubernetesObjectApi.makeApiClient(adminConfig());
    for (const namespace of [a, b]) await api.create(widget(namespace, "w", 1));
    const reconciled = new Set<string>();
    const manager = await startManager({}, reconciled);
    expect(manager.namespaces).toBeUndefined();
    await eventually(
      "both reconciled",
      async () => reconciled,
      (keys) => keys.has(`${a}/w`) && keys.has(`${b}/w`),
    );
  });
});
