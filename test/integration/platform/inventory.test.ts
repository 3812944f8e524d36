/**
 * A Component's inventory on the real API server, the platform controllers running with the bundle's
 * RBAC: install at 0.1.0 records every child with its uid; an older release's children the current
 * rendering no longer produces (a ConfigMap and a claim of mlflow's, put in place with the
 * controllers stopped, owned and recorded as the controller would have) are, on the update to 0.2.0,
 * pruned (the ConfigMap) or kept (the claim: data) — `slipway update --dry-run` says so first — and
 * nothing else goes; dropping mlflow deletes exactly its inventory, claim included; `slipway
 * uninstall --keep-data` then leaves the cluster as it was before the install but for the kept data.
 *
 * "The cluster" is every object of every served kind (discovery) in the platform's namespace, but
 * Events (records of what happened, expiring on their own), and every cluster-scoped object named
 * after the namespace (Slipway names its cluster-wide objects so) or bound to a claim in it.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ProviderKind } from "../../../src/apis/pipelines/provider.ts";
import { ComponentKind, type ComponentResource } from "../../../src/apis/platform/component.ts";
import { PlatformKind } from "../../../src/apis/platform/platform.ts";
import { isNotFound, RestClient } from "../../../src/kube/rest.ts";
import type { KubeObject } from "../../../src/kube/types.ts";
import { childTypes } from "../../../src/platform/component-children.ts";
import {
  entryKey,
  type InventoryEntry,
  inventoryEntry,
  verdictResolution,
} from "../../../src/platform/component-inventory.ts";
import { labels } from "../../../src/platform/component-objects.ts";
import { platformControllers } from "../../../src/platform/controllers.ts";
import { keptForAnnotation } from "../../../src/platform/kept-data.ts";
import { types } from "../../../src/platform/resource-types.ts";
import type { UpdatePreview } from "../../../src/platform/update-preview.ts";
import { cli, listComponents, readPlatform } from "../../e2e/platform/support.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { forbiddenRequests, operatorWithBundleRbac } from "../../support/operator-rbac.ts";
import { createPlatform } from "../../support/platform.ts";

beforeAll(() => installCrds([PlatformKind, ComponentKind, ProviderKind]));

const rest = () => new RestClient(adminConfig());

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

/** Every served, listable kind: its list path prefix, group and kind. */
async function servedKinds(): Promise<{ base: string; group: string; resource: ApiResource }[]> {
  const kinds: { base: string; group: string; resource: ApiResource }[] = [];
  const core = await rest().request<{ resources: ApiResource[] }>("GET", "/api/v1");
  for (const resource of core.resources) kinds.push({ base: "/api/v1", group: "", resource });
  const groups = await rest().request<{
    groups: { name: string; preferredVersion: { groupVersion: string } }[];
  }>("GET", "/apis");
  for (const group of groups.groups) {
    const list = await rest().request<{ resources: ApiResource[] }>(
      "GET",
      `/apis/${group.preferredVersion.groupVersion}`,
    );
    for (const resource of list.resources)
      kinds.push({ base: `/apis/${group.preferredVersion.groupVersion}`, group: group.name, resource });
  }
  return kinds.filter(({ resource }) => !resource.name.includes("/") && resource.verbs.includes("list"));
}

type Census = Map<string, KubeObject>;

/** A kind's objects at `path`, asked again while a just-installed CRD's storage initializes (429). */
async function listKind(path: string): Promise<{ items: KubeObject[] }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return await rest().request<{ items: KubeObject[] }>("GET", path);
    } catch (error) {
      const status = (error as { status?: number }).status;
      // a kind served but not listable here (e.g. an aggregated API that is not up)
      if (status === 404 || status === 405 || status === 503) return { items: [] };
      if (status !== 429 || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Every object of the namespace (but Events) and every cluster-scoped one of it, by group/kind/name. */
async function census(namespace: string): Promise<Census> {
  const objects: Census = new Map();
  for (const { base, group, resource } of await servedKinds()) {
    if (resource.kind === "Event") continue;
    const path = resource.namespaced
      ? `${base}/namespaces/${namespace}/${resource.name}`
      : `${base}/${resource.name}`;
    const list = await listKind(path);
    for (const item of list.items) {
      const name = item.metadata?.name ?? "";
      const claim = (item as { spec?: { claimRef?: { namespace?: string } } }).spec?.claimRef;
      if (!resource.namespaced && !name.includes(namespace) && claim?.namespace !== namespace) continue;
      objects.set(`${group}/${resource.kind}/${name}`, { ...item, kind: resource.kind });
    }
  }
  return objects;
}

/** What differs: objects added, removed, or replaced (same name, another uid). */
function diff(before: Census, after: Census) {
  const added = [...after.keys()].filter((key) => !before.has(key)).sort();
  const removed = [...before.keys()].filter((key) => !after.has(key)).sort();
  const replaced = [...before.keys()]
    .filter((key) => after.has(key) && after.get(key)?.metadata?.uid !== before.get(key)?.metadata?.uid)
    .sort();
  return { added, removed, replaced };
}

const component = async (namespace: string, name: string) =>
  (await listComponents(namespace)).find((c) => c.metadata.name === name);

/** The children `owner` controls, as inventory entries, read live (what its inventory must list). */
async function controlledChildren(namespace: string, owner: ComponentResource): Promise<InventoryEntry[]> {
  const entries: InventoryEntry[] = [];
  for (const type of childTypes) {
    const prefix = type.group ? `/apis/${type.group}/${type.version}` : `/api/${type.version}`;
    const list = await rest().request<{ items: KubeObject[] }>(
      "GET",
      `${prefix}/namespaces/${namespace}/${type.plural}`,
    );
    for (const item of list.items)
      if (item.metadata?.ownerReferences?.some((ref) => ref.controller && ref.uid === owner.metadata.uid)) {
        const entry = inventoryEntry(type, item);
        if (entry) entries.push(entry);
      }
  }
  return entries.sort((a, b) => entryKey(a).localeCompare(entryKey(b)));
}

const identity = (entry: InventoryEntry) => `${entryKey(entry)}#${entry.uid}`;

const get = (path: string) =>
  rest()
    .request<KubeObject>("GET", path)
    .catch((error) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });

const mergePatch = (path: string, body: object) =>
  rest().request<KubeObject>("PATCH", path, { body, contentType: "application/merge-patch+json" });

describe("a Component's inventory", () => {
  it("prunes what a release drops (claims kept), deletes a dropped component's inventory, and uninstall leaves only kept data", async () => {
    const namespace = await testNamespace("inventory");
    const before = await census(namespace);
    const platformPath = `/apis/${PlatformKind.group}/${PlatformKind.version}/namespaces/${namespace}/platforms/slipway`;
    const componentsPath = `/apis/${ComponentKind.group}/${ComponentKind.version}/namespaces/${namespace}/components`;
    const configMaps = `/api/v1/namespaces/${namespace}/configmaps`;
    const claims = `/api/v1/namespaces/${namespace}/persistentvolumeclaims`;

    // install: every Component's inventory lists exactly the children it controls, with their uids
    let manager = await operatorWithBundleRbac(namespace, platformControllers());
    await createPlatform(namespace, { version: "0.1.0" });
    await eventually(
      "the platform Running at 0.1.0",
      () => readPlatform(namespace),
      (p) => p.status?.phase === "Running" && p.status.version === "0.1.0",
      180_000,
    );
    for (const installed of await listComponents(namespace)) {
      const children = await controlledChildren(namespace, installed);
      const listed = await eventually(
        `${installed.metadata.name}'s inventory`,
        async () => (await component(namespace, installed.metadata.name ?? ""))?.status?.inventory ?? [],
        (inventory) => JSON.stringify(inventory.map(identity)) === JSON.stringify(children.map(identity)),
      );
      expect(listed.length, installed.metadata.name).toBeGreaterThanOrEqual(3);
    }
    expect(await forbiddenRequests(manager)).toBe(0);
    await manager.stop();

    // what an older release rendered for mlflow and this one no longer does, owned and recorded as
    // the controller would have; and a ConfigMap of someone else's carrying mlflow's label
    const mlflow = (await component(namespace, "slipway-mlflow")) as ComponentResource;
    const owner = {
      apiVersion: ComponentKind.apiVersion,
      kind: "Component",
      name: "slipway-mlflow",
      uid: mlflow.metadata.uid ?? "",
      controller: true,
      blockOwnerDeletion: true,
    };
    const childMeta = (name: string) => ({
      name,
      namespace,
      labels: { [labels.component]: "slipway-mlflow", "app.kubernetes.io/part-of": "slipway" },
      ownerReferences: [owner],
    });
    const legacy = await rest().request<KubeObject>("POST", configMaps, {
      body: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: childMeta("slipway-mlflow-legacy"),
        data: { a: "1" },
      },
    });
    const scratch = await rest().request<KubeObject>("POST", claims, {
      body: {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: childMeta("slipway-mlflow-scratch"),
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
      },
    });
    const notes = await rest().request<KubeObject>("POST", configMaps, {
      body: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "notes", labels: { [labels.component]: "slipway-mlflow" } },
        data: { b: "2" },
      },
    });
    const legacyEntry = inventoryEntry(types.componentConfigMap, legacy) as InventoryEntry;
    const scratchEntry = inventoryEntry(types.pvc, scratch) as InventoryEntry;
    await mergePatch(`${componentsPath}/slipway-mlflow/status`, {
      status: { inventory: [...(mlflow.status?.inventory ?? []), legacyEntry, scratchEntry] },
    });

    // the dry run says what the update does with them: one rule, the controller's
    const dryRun = await cli(namespace, "update", "--version", "0.2.0", "--dry-run", "-o", "json");
    expect(dryRun.code, dryRun.stderr).toBe(0);
    const preview = JSON.parse(dryRun.stdout) as UpdatePreview;
    const mlflowPreview = preview.components.find((c) => c.component === "mlflow");
    expect(mlflowPreview?.objects.filter((o) => o.action === "prune")).toEqual([
      {
        kind: "ConfigMap",
        name: "slipway-mlflow-legacy",
        action: "prune",
        resolution: verdictResolution({ action: "prune", entry: legacyEntry }, false),
      },
      {
        kind: "PersistentVolumeClaim",
        name: "slipway-mlflow-scratch",
        action: "prune",
        resolution: verdictResolution({ action: "keep", entry: scratchEntry, reason: "claim-data" }, false),
      },
    ]);
    const text = await cli(namespace, "update", "--version", "0.2.0", "--dry-run");
    expect(text.stdout).toContain(`- ConfigMap ${namespace}/slipway-mlflow-legacy`);
    expect(text.stdout).toContain("pruned: deleted by the component controller");

    // the update prunes the ConfigMap and nothing else: every other object keeps its uid
    const beforeUpdate = await census(namespace);
    manager = await operatorWithBundleRbac(namespace, platformControllers());
    await mergePatch(platformPath, { spec: { version: "0.2.0" } });
    await eventually(
      "the platform Running at 0.2.0",
      () => readPlatform(namespace),
      (p) => p.status?.phase === "Running" && p.status.version === "0.2.0",
      180_000,
    );
    await eventually(
      "the legacy ConfigMap pruned",
      () => get(`${configMaps}/slipway-mlflow-legacy`),
      (found) => found === undefined,
    );
    const afterUpdate = await census(namespace);
    const { removed } = diff(beforeUpdate, afterUpdate);
    // an update replaces pods and ReplicaSets (the images change); of everything else only the ConfigMap goes
    const rolled = (key: string) =>
      /^(\/Pod|apps\/ReplicaSet|apps\/ControllerRevision|discovery\.k8s\.io\/EndpointSlice)\//.test(key);
    expect(removed.filter((key) => !rolled(key))).toEqual(["/ConfigMap/slipway-mlflow-legacy"]);
    expect((await get(`${claims}/slipway-mlflow-scratch`))?.metadata?.uid).toBe(scratch.metadata?.uid);
    expect((await get(`${configMaps}/notes`))?.metadata?.uid).toBe(notes.metadata?.uid);
    const updated = (await component(namespace, "slipway-mlflow")) as ComponentResource;
    const inventoryKeys = (updated.status?.inventory ?? []).map(entryKey);
    expect(inventoryKeys).toContain(entryKey(scratchEntry));
    expect(inventoryKeys).not.toContain(entryKey(legacyEntry));

    // mlflow dropped: exactly its inventory goes, the claim with it; the other ConfigMap stays
    await mergePatch(platformPath, { spec: { components: { mlflow: { enabled: false } } } });
    await eventually(
      "the Component slipway-mlflow and its claim gone",
      async () => [
        await component(namespace, "slipway-mlflow"),
        await get(`${claims}/slipway-mlflow-scratch`),
      ],
      ([gone, claim]) => gone === undefined && claim === undefined,
      120_000,
    );
    const left = await census(namespace);
    const mlflowLeft = [...left.values()].filter(
      (object) => object.metadata?.labels?.[labels.component] === "slipway-mlflow",
    );
    expect(mlflowLeft.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual(["ConfigMap/notes"]);
    await rest().request("DELETE", `${configMaps}/notes`);
    expect(await forbiddenRequests(manager)).toBe(0);

    // uninstall --keep-data: the cluster as before, but the kept claims and credential Secrets
    const uninstall = await cli(
      namespace,
      "uninstall",
      "--yes",
      "--keep-crds",
      "--keep-data",
      "--timeout",
      "180s",
    );
    expect(uninstall.code, uninstall.stderr).toBe(0);
    const keptClaim = (object: KubeObject | undefined) =>
      (object?.kind === "PersistentVolumeClaim" || object?.kind === "Secret") &&
      object.metadata?.annotations?.[keptForAnnotation] === "slipway" &&
      !object.metadata.ownerReferences?.length;
    // kept data: the kept claims and Secrets, and the volumes bound to those claims (the data itself)
    const isKept = (object: KubeObject | undefined): boolean => {
      const claimRef = (object as { spec?: { claimRef?: { namespace?: string; name?: string } } })?.spec
        ?.claimRef;
      if (object?.kind === "PersistentVolume" && claimRef?.namespace === namespace)
        return keptClaim(after.get(`/PersistentVolumeClaim/${claimRef.name}`));
      return keptClaim(object);
    };
    let last: ReturnType<typeof diff> | undefined;
    let after: Census = new Map();
    try {
      await eventually(
        "the cluster as before the install, but kept data",
        async () => {
          after = await census(namespace);
          last = diff(before, after);
          return last;
        },
        (d) =>
          d.removed.length === 0 && d.replaced.length === 0 && d.added.every((key) => isKept(after.get(key))),
        120_000,
      );
    } catch (error) {
      const unexpected = last?.added.filter((key) => !isKept(after.get(key)));
      throw new Error(
        `${(error as Error).message}\ndiff from before the install: ${JSON.stringify({ ...last, unexpected }, null, 2)}`,
      );
    }
    const kept = last?.added ?? [];
    expect(kept.filter((key) => key.startsWith("/Secret/")).length).toBe(3);
    expect(kept.filter((key) => key.startsWith("/PersistentVolumeClaim/")).sort()).toEqual(
      [...afterUpdate.keys()]
        .filter(
          (key) =>
            key.startsWith("/PersistentVolumeClaim/") &&
            key !== "/PersistentVolumeClaim/slipway-mlflow-scratch",
        )
        .sort(),
    );
  }, 600_000);
});
