import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../../src/kube/types.ts";
import {
  entryKey,
  type InventoryEntry,
  inventoryEntry,
  nextInventory,
  pruneDecisions,
  verdictResolution,
} from "../../../src/platform/component-inventory.ts";
import { keptForAnnotation } from "../../../src/platform/kept-data.ts";
import { types } from "../../../src/platform/resource-types.ts";

const componentUid = "component-uid";
const entry = (group: string, kind: string, name: string, uid = `${name}-uid`): InventoryEntry => ({
  group,
  kind,
  namespace: "ns",
  name,
  uid,
});
const deployment = entry("apps", "Deployment", "slipway-mlflow");
const configMap = entry("", "ConfigMap", "slipway-mlflow-config");
const claim = entry("", "PersistentVolumeClaim", "slipway-mlflow-data");
const service = entry("", "Service", "slipway-mlflow");

const owned = (e: InventoryEntry, controller = componentUid): KubeObject => ({
  kind: e.kind,
  metadata: {
    name: e.name,
    namespace: e.namespace,
    uid: e.uid,
    ownerReferences: [
      {
        apiVersion: "platform.slipway.dev/v1beta1",
        kind: "Component",
        name: "c",
        uid: controller,
        controller: true,
      },
    ],
  },
});

const decide = (
  inventory: InventoryEntry[],
  rendered: InventoryEntry[],
  removing: boolean,
  live: Record<string, KubeObject | undefined>,
) =>
  pruneDecisions({
    componentUid,
    platform: "slipway",
    inventory,
    rendered: new Set(rendered.map(entryKey)),
    removing,
    live: (e) => live[entryKey(e)],
  });

describe("a Component's inventory: what is pruned", () => {
  const all = [deployment, configMap, claim, service];
  const liveAll = Object.fromEntries(all.map((e) => [entryKey(e), owned(e)]));

  it("decides nothing for what the rendering still produces", () => {
    expect(decide(all, all, false, liveAll)).toEqual([]);
  });

  it("prunes a child the rendering drops, but keeps a dropped claim (its data) while the Component stays", () => {
    expect(decide(all, [deployment], false, liveAll)).toEqual([
      { action: "prune", entry: configMap },
      { action: "keep", entry: claim, reason: "claim-data" },
      { action: "prune", entry: service },
    ]);
  });

  it("prunes everything, claims included, when the Component goes", () => {
    expect(decide(all, [], true, liveAll).map((v) => v.action)).toEqual(["prune", "prune", "prune", "prune"]);
  });

  it("leaves a claim uninstall --keep-data kept for the Platform", () => {
    const kept: KubeObject = {
      kind: claim.kind,
      metadata: { name: claim.name, uid: claim.uid, annotations: { [keptForAnnotation]: "slipway" } },
    };
    expect(decide([claim], [], true, { [entryKey(claim)]: kept })).toEqual([
      { action: "forget", entry: claim, reason: "kept-data" },
    ]);
  });

  it("forgets what is gone, what another object of the name replaced, and what the Component no longer controls", () => {
    const replaced = { ...owned(configMap), metadata: { ...owned(configMap).metadata, uid: "other" } };
    expect(
      decide([deployment, configMap, service], [], true, {
        [entryKey(configMap)]: replaced,
        [entryKey(service)]: owned(service, "someone-else"),
      }),
    ).toEqual([
      { action: "forget", entry: deployment, reason: "gone" },
      { action: "forget", entry: configMap, reason: "replaced" },
      { action: "forget", entry: service, reason: "not-owned" },
    ]);
  });

  it("says in the dry run what is pruned and what is kept, and nothing of what is forgotten", () => {
    expect(verdictResolution({ action: "prune", entry: configMap }, false)).toMatch(/^pruned: deleted/);
    expect(verdictResolution({ action: "keep", entry: claim, reason: "claim-data" }, false)).toMatch(
      /^kept: a claim holds data/,
    );
    expect(verdictResolution({ action: "forget", entry: claim, reason: "gone" }, true)).toBeUndefined();
  });
});

describe("a Component's inventory: what is recorded", () => {
  it("records a live object with its uid, none without", () => {
    expect(inventoryEntry(types.deployment, { metadata: { name: "d", namespace: "ns", uid: "u" } })).toEqual({
      group: "apps",
      kind: "Deployment",
      namespace: "ns",
      name: "d",
      uid: "u",
    });
    expect(inventoryEntry(types.deployment, { metadata: { name: "d", namespace: "ns" } })).toBeUndefined();
  });

  it("holds the current children, the recorded ones not forgotten (kept, still pruning, not seen this time); sorted", () => {
    const recreated = { ...deployment, uid: "new" };
    const verdicts = [
      { action: "keep", entry: claim, reason: "claim-data" },
      { action: "prune", entry: configMap },
    ] as const;
    expect(nextInventory([deployment, configMap, claim, service], [recreated], verdicts)).toEqual([
      configMap,
      claim,
      service,
      recreated,
    ]);
    // pruned and seen gone: no longer listed
    expect(
      nextInventory(
        [deployment, configMap],
        [deployment],
        [{ action: "forget", entry: configMap, reason: "gone" }],
      ),
    ).toEqual([deployment]);
    // nothing decided (a Component waiting for its dependencies prunes nothing): every entry stays
    expect(nextInventory([configMap, deployment], [], [])).toEqual([configMap, deployment]);
  });
});
