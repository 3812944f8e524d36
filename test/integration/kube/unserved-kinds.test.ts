import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { KubernetesObjectApi } from "@kubernetes/client-node";
import pino from "pino";
import { expect, onTestFinished, test } from "vitest";
import { defineKind } from "../../../src/apis/kind.ts";
import { Manager } from "../../../src/kube/manager.ts";
import type { ControllerSpec, ResourceType } from "../../../src/kube/types.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { Widget } from "../../support/test-kind.ts";

/** A kind of its own group per run, so its CRD is surely absent when the test starts. */
function absentKind() {
  const kind = defineKind({ ...Widget, group: `unserved-${randomBytes(3).toString("hex")}.slipway.dev` });
  const type: ResourceType = { ...kind, namespaced: true };
  return { kind, type, resource: `${kind.group}/v1/widgets` };
}

/** The manager's log lines, parsed. */
function capturedLog() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: pino({ level: "info" }, stream), lines };
}

/**
 * A started manager with one controller (`spec`, recording the keys it reconciles), its /readyz,
 * and the absent kind's CRD deleted when the test ends.
 */
function startedManager(
  namespace: string,
  kind: ReturnType<typeof absentKind>["kind"],
  log: pino.Logger,
  spec: Omit<ControllerSpec, "reconcile" | "permissions">,
) {
  const reconciled: string[] = [];
  const manager = new Manager({
    kubeConfig: adminConfig(),
    namespace,
    fieldManager: "unserved-test",
    healthPort: 0,
    log,
  });
  manager.add({
    ...spec,
    permissions: [],
    reconcile: async (key) => {
      reconciled.push(key.name);
      return undefined;
    },
  });
  const api = KubernetesObjectApi.makeApiClient(adminConfig());
  onTestFinished(async () => {
    await manager.stop();
    const crd = { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition" };
    await api.delete({ ...crd, metadata: { name: `widgets.${kind.group}` } }).catch(() => {});
  });
  void manager.start();
  const readyz = async () => {
    const response = await fetch(`http://127.0.0.1:${manager.ports.health}/readyz`);
    return { status: response.status, text: await response.text() };
  };
  return { manager, api, reconciled, readyz };
}

const warn = 40;

test("a controller whose CRD is absent: /readyz names the kind, one warning, synced once the CRD is installed", async () => {
  const namespace = await testNamespace("unserved");
  const { kind, type, resource } = absentKind();
  const { log, lines } = capturedLog();
  const { manager, api, reconciled, readyz } = startedManager(namespace, kind, log, {
    name: "widgets",
    for: type,
  });

  const unserved = `[-]cache ${resource} failed: the API server does not serve it (is its CRD installed?)`;
  const notReady = await eventually(
    "/readyz naming the kind",
    readyz,
    (answer) => answer.text.includes(unserved),
    10_000,
  );
  expect(notReady.status).toBe(503);
  const informer = manager.cache.informer(type);
  await eventually(
    "three failed lists",
    async () => informer.stats.watchErrors,
    (failures) => failures >= 3,
    10_000,
  );
  const warnings = lines.filter((line) => line.level === warn);
  expect(warnings.map((line) => line.msg)).toEqual([
    `the API server does not serve ${resource} (is its CRD installed?); retrying with backoff until it does`,
  ]);

  await installCrds([kind]);
  await api.create({
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    metadata: { name: "g", namespace },
    spec: { size: 1 },
  });
  await eventually(
    "the widget reconciled",
    async () => reconciled,
    (names) => names.includes("g"),
    30_000,
  );
  expect(await readyz()).toEqual({ status: 200, text: "ok" });
  expect(lines.map((line) => line.msg)).toContain(`the API server serves ${resource} now`);
  expect(lines.filter((line) => line.level === warn)).toHaveLength(1);
});

test("an optional watch of an absent kind: the controller starts and /readyz is ok; once the CRD is installed its changes enqueue, cached without their spec", async () => {
  const namespace = await testNamespace("optional");
  const { kind, type } = absentKind();
  const watched: ResourceType = { ...type, cacheWithoutSpec: true };
  const { log } = capturedLog();
  // the controller's own kind is served (ConfigMaps); the watched one is not, yet
  const { manager, api, reconciled, readyz } = startedManager(namespace, kind, log, {
    name: "configmaps",
    for: { group: "", version: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true },
    watches: [
      {
        type: watched,
        optional: true,
        map: (object) => [{ namespace, name: `for-${object.metadata?.name}` }],
      },
    ],
  });
  await api.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "own", namespace } });
  // started without the absent kind: its own objects are reconciled, and it is ready
  await eventually(
    "the controller's own object reconciled",
    async () => reconciled,
    (names) => names.includes("own"),
  );
  expect(manager.cache.informer(watched).state).toBe("unserved");
  expect(await readyz()).toEqual({ status: 200, text: "ok" });

  await installCrds([kind]);
  await api.create({
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    metadata: { name: "g", namespace },
    spec: { size: 1 },
  });
  await eventually(
    "the widget's change enqueued",
    async () => reconciled,
    (names) => names.includes("for-g"),
    30_000,
  );
  const cached = manager.cache.get<{ spec?: unknown; metadata?: { name?: string } }>(watched, {
    namespace,
    name: "g",
  });
  expect(cached?.metadata?.name).toBe("g");
  expect(cached).not.toHaveProperty("spec");
});
