/**
 * An update that changes an immutable field of a workload finishes: the component controller
 * (running as the operator with only the bundle's RBAC) recreates the StatefulSet and keeps its
 * claim. The StatefulSet an older rendering left has a volume claim template the current rendering
 * no longer has (a changed template as a release would bring it: the operator's own field manager
 * owns it, so its apply drops it, which the API server refuses); `slipway update --dry-run` first
 * reports the conflict and how it is resolved, then the controller resolves it. A Deployment whose
 * selector changes is recreated too; what was already created from the rendering is not, twice.
 */
import type { V1Deployment, V1PersistentVolumeClaim, V1Pod, V1StatefulSet } from "@kubernetes/client-node";
import { beforeAll, describe, expect, it } from "vitest";
import { ProviderKind } from "../../../src/apis/pipelines/provider.ts";
import { ComponentKind, type ComponentResource } from "../../../src/apis/platform/component.ts";
import { PlatformKind } from "../../../src/apis/platform/platform.ts";
import { KubeClient } from "../../../src/kube/client.ts";
import { ResourceTypes } from "../../../src/kube/discovery.ts";
import { isNotFound, RestClient } from "../../../src/kube/rest.ts";
import { findRelease, type Release } from "../../../src/platform/catalog.ts";
import { annotations } from "../../../src/platform/component-objects.ts";
import { platformControllers } from "../../../src/platform/controllers.ts";
import { operatorFieldManager } from "../../../src/platform/names.ts";
import { types } from "../../../src/platform/resource-types.ts";
import { previewUpdate } from "../../../src/platform/update-dry-run.ts";
import { renderUpdate } from "../../../src/platform/update-preview.ts";
import { listComponents, readPlatform } from "../../e2e/platform/support.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { forbiddenRequests, operatorWithBundleRbac } from "../../support/operator-rbac.ts";
import { createPlatform } from "../../support/platform.ts";

beforeAll(() => installCrds([PlatformKind, ComponentKind, ProviderKind]));

const release = (version: string): Release => {
  const found = findRelease(version);
  if (!found) throw new Error(`no release ${version}`);
  return found;
};

interface Event {
  reason?: string;
  note?: string;
  type?: string;
  regarding?: { kind?: string; name?: string };
}

const rest = () => new RestClient(adminConfig());

const get = <T>(path: string) =>
  rest()
    .request<T>("GET", path)
    .catch((error) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });

const paths = (namespace: string) => ({
  statefulSet: `/apis/apps/v1/namespaces/${namespace}/statefulsets/slipway-postgres`,
  claim: `/api/v1/namespaces/${namespace}/persistentvolumeclaims/slipway-postgres-database`,
  pod: `/api/v1/namespaces/${namespace}/pods/slipway-postgres-0`,
});

const postgres = async (namespace: string) =>
  (await listComponents(namespace)).find((c) => c.metadata.name === "slipway-postgres");

const operatorClient = () =>
  new KubeClient(rest(), new ResourceTypes(rest()), { fieldManager: operatorFieldManager });

/**
 * A Platform at 0.2.0 whose postgres is Ready, the controllers stopped, and its StatefulSet put in
 * place (the old one deleted with its pod orphaned, which the new one adopts) of one as an older
 * release rendered it: with a volume claim template, applied by the operator's field manager, with
 * `appliedHash` and `replicas`. Returns what was there before and the controller's rendering.
 */
async function withOlderStatefulSet(namespace: string, older: { appliedHash?: string; replicas?: number }) {
  const first = await operatorWithBundleRbac(namespace, platformControllers());
  await createPlatform(namespace, { version: "0.2.0" });
  await eventually(
    "postgres Ready",
    () => postgres(namespace),
    (c) => c?.status?.phase === "Ready",
    180_000,
  );
  const claim = await get<V1PersistentVolumeClaim>(paths(namespace).claim);
  const pod = await get<V1Pod>(paths(namespace).pod);
  expect(claim?.metadata?.uid).toBeDefined();
  expect(pod?.metadata?.uid).toBeDefined();
  expect(await forbiddenRequests(first)).toBe(0);
  await first.stop();

  const platform = await readPlatform(namespace);
  const component = (await postgres(namespace)) as ComponentResource;
  const rendered = renderUpdate(platform, platform.spec, release("0.2.0"), [component], types.component)
    .find((c) => c.component === "postgres")
    ?.objects.find(({ object }) => object.kind === "StatefulSet")?.object as V1StatefulSet | undefined;
  if (!rendered?.spec) throw new Error("no StatefulSet rendered for postgres");
  const hash = older.appliedHash ?? rendered.metadata?.annotations?.[annotations.appliedHash] ?? "";
  const olderStatefulSet: V1StatefulSet = {
    ...rendered,
    metadata: {
      ...rendered.metadata,
      annotations: { ...rendered.metadata?.annotations, [annotations.appliedHash]: hash },
    },
    spec: {
      ...rendered.spec,
      replicas: older.replicas ?? rendered.spec.replicas,
      volumeClaimTemplates: [
        {
          metadata: { name: "pgdata" },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
        },
      ],
    },
  };
  await rest().request("DELETE", paths(namespace).statefulSet, {
    body: { apiVersion: "v1", kind: "DeleteOptions", propagationPolicy: "Orphan" },
  });
  await eventually(
    "the StatefulSet deleted",
    () => get<V1StatefulSet>(paths(namespace).statefulSet),
    (s) => !s,
  );
  const replaced = await operatorClient().apply(olderStatefulSet, { force: true });
  expect(replaced.spec?.volumeClaimTemplates).toHaveLength(1);
  return { platform, claim, pod, rendered, replaced };
}

/** The events.k8s.io Events of the namespace with `reason`. */
async function eventsWith(namespace: string, reason: string): Promise<Event[]> {
  const list = await rest().request<{ items: Event[] }>(
    "GET",
    `/apis/events.k8s.io/v1/namespaces/${namespace}/events`,
  );
  return list.items.filter((e) => e.reason === reason);
}

describe("an update that changes an immutable field of a workload", () => {
  it("recreates the StatefulSet, keeps its claim (same uid) and its pod, and the dry run says so first", async () => {
    const namespace = await testNamespace("recreate-immutable");
    const statefulSetPath = paths(namespace).statefulSet;
    const { platform, claim, pod, rendered, replaced } = await withOlderStatefulSet(namespace, {
      appliedHash: "an-older-rendering",
    });
    const operator = operatorClient();

    // the dry run: the conflict, and what the controller will do about it
    const preview = await previewUpdate(operator, platform, {
      spec: platform.spec,
      release: release("0.2.0"),
    });
    const conflict = preview.components
      .find((c) => c.component === "postgres")
      ?.objects.find((o) => o.kind === "StatefulSet");
    expect(conflict).toMatchObject({
      action: "conflict",
      name: "slipway-postgres",
      fields: ["spec.volumeClaimTemplates"],
    });
    expect(conflict?.action === "conflict" && conflict.resolution).toBe(
      `recreate StatefulSet ${namespace}/slipway-postgres (spec.volumeClaimTemplates is immutable): deleted with propagationPolicy Orphan, so its pods keep running until the new StatefulSet adopts them; its PersistentVolumeClaim slipway-postgres-database and their data are kept`,
    );
    expect((await get<V1StatefulSet>(statefulSetPath))?.metadata?.uid).toBe(replaced.metadata?.uid);

    // the real update: the controller recreates it, without the template
    const second = await operatorWithBundleRbac(namespace, platformControllers());
    const recreated = await eventually(
      "the StatefulSet recreated from the current rendering",
      () => get<V1StatefulSet>(statefulSetPath),
      (s) =>
        s?.metadata?.uid !== undefined &&
        s.metadata.uid !== replaced.metadata?.uid &&
        !s.metadata.deletionTimestamp &&
        (s.spec?.volumeClaimTemplates ?? []).length === 0,
      120_000,
    );
    expect(recreated?.metadata?.annotations?.[annotations.appliedHash]).toBe(
      rendered.metadata?.annotations?.[annotations.appliedHash],
    );
    const ready = await eventually(
      "postgres Ready again",
      () => postgres(namespace),
      (c) => c?.status?.phase === "Ready" && c.status.observedGeneration === c.metadata.generation,
      120_000,
    );
    expect(ready?.status?.readyReplicas).toBe(1);
    // the data: the same claim, never deleted; the pod ran on (orphaned, then adopted)
    const kept = await get<V1PersistentVolumeClaim>(paths(namespace).claim);
    expect(kept?.metadata?.uid).toBe(claim?.metadata?.uid);
    expect(kept?.metadata?.deletionTimestamp).toBeUndefined();
    const adopted = await eventually(
      "the pod adopted by the new StatefulSet",
      () => get<V1Pod>(paths(namespace).pod),
      (p) => p?.metadata?.ownerReferences?.some((o) => o.uid === recreated?.metadata?.uid) === true,
    );
    expect(adopted?.metadata?.uid).toBe(pod?.metadata?.uid);

    const events = await eventually(
      "the Recreated Event",
      () => eventsWith(namespace, "Recreated"),
      (list) => list.length > 0,
    );
    expect(events[0]).toMatchObject({
      type: "Normal",
      regarding: { kind: "Component", name: "slipway-postgres" },
      note: expect.stringContaining(
        "StatefulSet slipway-postgres is recreated: spec.volumeClaimTemplates is immutable; deleted with propagationPolicy Orphan",
      ),
    });
    expect(await forbiddenRequests(second)).toBe(0);
  }, 420_000);

  it("does not recreate again what was already created from this rendering: Failed naming the field, the StatefulSet kept", async () => {
    const namespace = await testNamespace("recreate-refused");
    // the rendering's own applied hash, and replicas changed by hand: the controller applies it again
    const { claim, replaced } = await withOlderStatefulSet(namespace, { replicas: 2 });
    const manager = await operatorWithBundleRbac(namespace, platformControllers());
    const failed = await eventually(
      "postgres Failed naming the field",
      () => postgres(namespace),
      (c) => c?.status?.phase === "Failed",
      60_000,
    );
    expect(failed?.status?.message).toBe(
      "StatefulSet slipway-postgres cannot be updated: spec.volumeClaimTemplates is immutable and it is not recreated: the StatefulSet was already created from this rendering and is refused again",
    );
    expect((await get<V1StatefulSet>(paths(namespace).statefulSet))?.metadata?.uid).toBe(
      replaced.metadata?.uid,
    );
    expect((await get<V1PersistentVolumeClaim>(paths(namespace).claim))?.metadata?.uid).toBe(
      claim?.metadata?.uid,
    );
    expect(await eventsWith(namespace, "Recreated")).toEqual([]);
    expect(await forbiddenRequests(manager)).toBe(0);
  }, 300_000);

  it("recreates a Deployment whose selector changes: its pods replaced, the Component Ready again", async () => {
    const namespace = await testNamespace("recreate-selector");
    const first = await operatorWithBundleRbac(namespace, platformControllers());
    await createPlatform(namespace, { version: "0.2.0" });
    const web = async () => (await listComponents(namespace)).find((c) => c.metadata.name === "slipway-web");
    await eventually("web Ready", web, (c) => c?.status?.phase === "Ready", 180_000);
    await first.stop();
    const platform = await readPlatform(namespace);
    const rendered = renderUpdate(
      platform,
      platform.spec,
      release("0.2.0"),
      [(await web()) as ComponentResource],
      types.component,
    )
      .find((c) => c.component === "web")
      ?.objects.find(({ object }) => object.kind === "Deployment")?.object as V1Deployment | undefined;
    if (!rendered?.spec) throw new Error("no Deployment rendered for web");
    // an older release's Deployment: one more selector label, applied by the operator's field manager
    const labels = { ...rendered.spec.selector.matchLabels, tier: "web" };
    const older: V1Deployment = {
      ...rendered,
      metadata: {
        ...rendered.metadata,
        annotations: { ...rendered.metadata?.annotations, [annotations.appliedHash]: "an-older-rendering" },
      },
      spec: {
        ...rendered.spec,
        selector: { matchLabels: labels },
        template: { ...rendered.spec.template, metadata: { ...rendered.spec.template.metadata, labels } },
      },
    };
    const deploymentPath = `/apis/apps/v1/namespaces/${namespace}/deployments/slipway-web`;
    await rest().request("DELETE", deploymentPath, {
      body: { apiVersion: "v1", kind: "DeleteOptions", propagationPolicy: "Background" },
    });
    await eventually(
      "the Deployment deleted",
      () => get<V1Deployment>(deploymentPath),
      (d) => !d,
    );
    const replaced = await operatorClient().apply(older, { force: true });

    const second = await operatorWithBundleRbac(namespace, platformControllers());
    const recreated = await eventually(
      "the Deployment recreated with the rendered selector",
      () => get<V1Deployment>(deploymentPath),
      (d) =>
        d?.metadata?.uid !== undefined &&
        d.metadata.uid !== replaced.metadata?.uid &&
        d.spec?.selector.matchLabels?.tier === undefined,
      120_000,
    );
    expect(recreated?.spec?.selector).toEqual(rendered.spec.selector);
    await eventually(
      "web Ready again",
      web,
      (c) => c?.status?.phase === "Ready" && c.status.observedGeneration === c.metadata.generation,
      120_000,
    );
    // the old pods went with the old Deployment: every pod of web's now has the rendered labels only
    await eventually(
      "no pod of the old selector",
      async () =>
        (
          await rest().request<{ items: V1Pod[] }>("GET", `/api/v1/namespaces/${namespace}/pods`, {
            query: { labelSelector: "tier=web" },
          })
        ).items,
      (pods) => pods.length === 0,
    );
    const events = await eventually(
      "the Recreated Event",
      () => eventsWith(namespace, "Recreated"),
      (list) => list.length > 0,
    );
    expect(events[0]?.note).toContain(
      "Deployment slipway-web is recreated: spec.selector is immutable; deleted with propagationPolicy Background, so its pods are replaced by the new one's",
    );
    expect(await forbiddenRequests(second)).toBe(0);
  }, 420_000);
});
