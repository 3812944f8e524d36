import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeConfig, KubernetesObjectApi, PatchStrategy } from "@kubernetes/client-node";
import pino from "pino";
import { afterAll, beforeAll, expect, test } from "vitest";
import { toCrd } from "../../../src/apis/crd.ts";
import { down, up } from "../../../src/dev/cluster.ts";
import { etcdClientUrl } from "../../../src/dev/components.ts";
import { readState } from "../../../src/dev/state.ts";
import { Manager } from "../../../src/kube/manager.ts";
import type { ControllerSpec } from "../../../src/kube/types.ts";
import { eventually } from "../../support/cluster.ts";
import { Widget, type WidgetObject, widget, widgetType } from "../../support/test-kind.ts";

// This test restarts the API server and compacts etcd: it runs on a private control plane.
let dir = "";
let kubeConfig: KubeConfig;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "slipway-runtime-"));
  const state = await up({ dir, nodes: 1, realNode: false });
  kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(state.kubeconfig);
  const api = KubernetesObjectApi.makeApiClient(kubeConfig);
  await api.patch(toCrd(Widget), undefined, undefined, "tests", true, PatchStrategy.ServerSideApply);
  await eventually(
    "Widget CRD served",
    () => api.list(Widget.apiVersion, Widget.kind, "default"),
    () => true,
  );
}, 300_000);

afterAll(async () => {
  if (dir) {
    await down(dir);
    await rm(dir, { recursive: true, force: true });
  }
});

async function restartApiserver(): Promise<void> {
  const state = await readState(dir);
  const apiserver = state?.processes.find((p) => p.name === "kube-apiserver");
  if (!apiserver) throw new Error("no kube-apiserver in the state file");
  process.kill(apiserver.pid, "SIGKILL");
  await eventually(
    "kube-apiserver gone",
    async () => {
      try {
        process.kill(apiserver.pid, 0);
        return false;
      } catch {
        return true;
      }
    },
    (gone) => gone,
    10_000,
  );
  await up({ dir, nodes: 1, realNode: false });
}

/** A POST to etcd's JSON gateway over TLS with the API server's client certificate (etcd takes no other). */
async function etcdPost<T>(path: string, body: unknown): Promise<{ status: number; json: T }> {
  const state = await readState(dir);
  if (!state) throw new Error("no control plane state");
  const files = { ca: state.pki.etcdCaCert, cert: state.pki.etcdClientCert, key: state.pki.etcdClientKey };
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      `${etcdClientUrl(state.ports)}${path}`,
      {
        method: "POST",
        ca: readFileSync(files.ca),
        cert: readFileSync(files.cert),
        key: readFileSync(files.key),
      },
      (response) => {
        let text = "";
        response.on("data", (chunk) => {
          text += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) as T }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

/** Compacts etcd at its current revision through its JSON gateway: every older resourceVersion is gone. */
async function compactEtcd(): Promise<void> {
  const range = await etcdPost<{ header: { revision: string } }>("/v3/kv/range", { key: "Lw==" });
  const compaction = await etcdPost("/v3/kv/compaction", {
    revision: range.json.header.revision,
    physical: true,
  });
  expect(compaction.status).toBe(200);
}

test("a controller keeps converging across API server restarts and an expired watch; never two reconciles at once per key", async () => {
  const api = KubernetesObjectApi.makeApiClient(kubeConfig);
  const active = new Set<string>();
  const overlaps: string[] = [];
  const spec: ControllerSpec = {
    name: "widget-echo",
    for: widgetType,
    permissions: [],
    concurrency: 4,
    async reconcile(key, { cache, client }) {
      const id = `${key.namespace}/${key.name}`;
      if (active.has(id)) overlaps.push(id);
      active.add(id);
      try {
        const object = cache.get<WidgetObject>(widgetType, key);
        if (!object || object.status?.size === object.spec.size) return undefined;
        await new Promise((resolve) => setTimeout(resolve, 5)); // widen the window an overlap would need
        await client.applyStatus({
          ...widget(id.split("/")[0] as string, key.name, 0),
          status: { size: object.spec.size },
        });
        return undefined;
      } finally {
        active.delete(id);
      }
    },
  };
  const manager = new Manager({
    kubeConfig,
    fieldManager: "resilience-test",
    log: pino({ level: "silent" }),
  });
  manager.add(spec);
  await manager.start();
  try {
    const names = Array.from({ length: 20 }, (_, i) => `w${i}`);
    const setSizes = async (size: number) => {
      for (const name of names) {
        await api.patch(
          widget("default", name, size),
          undefined,
          undefined,
          "tester",
          true,
          PatchStrategy.ServerSideApply,
        );
      }
    };
    const converged = (size: number) =>
      eventually(
        `all widgets at size ${size}`,
        async () =>
          ((await api.list(Widget.apiVersion, Widget.kind, "default")) as { items: WidgetObject[] }).items,
        (items) => items.length === names.length && items.every((w) => w.status?.size === size),
        90_000,
      );

    await setSizes(1);
    await converged(1);

    // 1. the API server dies and comes back: watches reconnect, changes made right after are reconciled
    await restartApiserver();
    await setSizes(2);
    await converged(2);

    // 2. the watch expires: etcd is compacted past the informer's resourceVersion, so resuming is 410 Gone
    const informer = manager.cache.informer(widgetType);
    const goneBefore = informer.stats.relistsAfterGone;
    await setSizes(3); // the informer's resourceVersion moves, then everything before now is compacted
    await converged(3);
    // an unrelated write moves etcd's revision past the informer's, so the compaction covers it
    await api.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "bump", namespace: "default" },
    });
    await compactEtcd();
    await restartApiserver();
    await setSizes(4);
    await converged(4);
    expect(informer.stats.relistsAfterGone).toBeGreaterThan(goneBefore);
    expect(overlaps).toEqual([]);
  } finally {
    await manager.stop();
  }
});
