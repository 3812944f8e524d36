/**
 * A Component's inventory (pure): the objects the component controller applied for it (group, kind,
 * namespace, name, uid), recorded in its status, and what becomes of each when the rendering no
 * longer produces it or the Component is deleted. One rule for the controller (which prunes) and
 * `slipway update --dry-run` (which says what would be pruned).
 *
 * - An entry the current rendering still produces is the Component's live child: nothing to decide.
 * - Gone, or replaced by another object of its name (another uid): forgotten, nothing deleted.
 * - No longer controlled by the Component (`uninstall --keep-data` kept it for the Platform, or
 *   someone took it over): forgotten, left in place.
 * - A PersistentVolumeClaim (data) while the Component stays: kept, still listed, and deleted only
 *   when the Component is (the data of a claim a release stops rendering is never lost by an update).
 * - Anything else: pruned, deleted with a uid precondition (only that very object).
 */
import type { ComponentResource } from "../apis/platform/component.ts";
import { controllerOf } from "../kube/owners.ts";
import type { KubeObject, ResourceType } from "../kube/types.ts";
import { keptFor } from "./kept-data.ts";

/** Held by a Component until the component controller has deleted its inventory (minus kept data). */
export const inventoryFinalizer = "platform.slipway.dev/inventory";

export type InventoryEntry = NonNullable<NonNullable<ComponentResource["status"]>["inventory"]>[number];

/** An entry's identity without its uid: `apps/Deployment/ns/name`. */
export const entryKey = (entry: Pick<InventoryEntry, "group" | "kind" | "namespace" | "name">) =>
  `${entry.group}/${entry.kind}/${entry.namespace}/${entry.name}`;

/** The identity (entryKey) of a rendered child of `type`. */
export const renderedKey = (type: ResourceType, object: KubeObject) =>
  entryKey({
    group: type.group,
    kind: type.kind,
    namespace: object.metadata?.namespace ?? "",
    name: object.metadata?.name ?? "",
  });

/** The inventory entry of `object` of `type` as it lives (undefined without a uid: not created yet). */
export function inventoryEntry(type: ResourceType, object: KubeObject): InventoryEntry | undefined {
  const uid = object.metadata?.uid;
  if (!uid) return undefined;
  return {
    group: type.group,
    kind: type.kind,
    namespace: object.metadata?.namespace ?? "",
    name: object.metadata?.name ?? "",
    uid,
  };
}

/** Entries in one order (kind, then name), so an unchanged inventory compares equal. */
export const sortedInventory = (entries: Iterable<InventoryEntry>): InventoryEntry[] =>
  [...entries].sort((a, b) => entryKey(a).localeCompare(entryKey(b)));

export type InventoryVerdict =
  | { action: "prune"; entry: InventoryEntry }
  | { action: "keep"; entry: InventoryEntry; reason: "claim-data" }
  | { action: "forget"; entry: InventoryEntry; reason: "gone" | "replaced" | "kept-data" | "not-owned" };

export interface PruneInput {
  /** The Component's uid: a child it controls names it in its controller reference. */
  componentUid: string;
  /** The Platform's name (what `uninstall --keep-data` marks a kept object with). */
  platform: string;
  /** The recorded inventory. */
  inventory: readonly InventoryEntry[];
  /** The identities (entryKey) of what the current rendering produces; empty when the Component goes. */
  rendered: ReadonlySet<string>;
  /** The Component is being deleted (dropped from its release, disabled, or its Platform uninstalled). */
  removing: boolean;
  /** The object of the entry's kind and name as it is now, undefined when there is none. */
  live: (entry: InventoryEntry) => KubeObject | undefined;
}

/** What becomes of each inventory entry the rendering no longer produces (every one when removing). */
export function pruneDecisions(input: PruneInput): InventoryVerdict[] {
  return input.inventory
    .filter((entry) => input.removing || !input.rendered.has(entryKey(entry)))
    .map((entry): InventoryVerdict => {
      const live = input.live(entry);
      if (!live) return { action: "forget", entry, reason: "gone" };
      if (live.metadata?.uid !== entry.uid) return { action: "forget", entry, reason: "replaced" };
      if (controllerOf(live)?.uid !== input.componentUid) {
        return { action: "forget", entry, reason: keptFor(live, input.platform) ? "kept-data" : "not-owned" };
      }
      if (entry.kind === "PersistentVolumeClaim" && entry.group === "" && !input.removing) {
        return { action: "keep", entry, reason: "claim-data" };
      }
      return { action: "prune", entry };
    });
}

/**
 * The inventory to record: the recorded entries but those the verdicts forget (gone, replaced, no
 * longer the Component's; one pruned stays until it is seen gone, one kept stays), with what the
 * Component has now (`current`: its rendered children as they live, each with its uid) in place of
 * the recorded entry of the same identity. Without verdicts (nothing was pruned this time) every
 * recorded entry stays.
 */
export function nextInventory(
  recorded: readonly InventoryEntry[],
  current: readonly InventoryEntry[],
  verdicts: readonly InventoryVerdict[],
): InventoryEntry[] {
  const forgotten = new Set(
    verdicts.filter((verdict) => verdict.action === "forget").map((verdict) => entryKey(verdict.entry)),
  );
  const byKey = new Map<string, InventoryEntry>();
  for (const entry of recorded) if (!forgotten.has(entryKey(entry))) byKey.set(entryKey(entry), entry);
  for (const entry of current) byKey.set(entryKey(entry), entry);
  return sortedInventory(byKey.values());
}

/** What `slipway update --dry-run` says of an object the update leaves without a rendering. */
export function verdictResolution(verdict: InventoryVerdict, removing: boolean): string | undefined {
  if (verdict.action === "prune") {
    return removing
      ? "pruned: deleted by the component controller before its Component goes (the Component's inventory)"
      : "pruned: deleted by the component controller (its Component's inventory lists it and the new rendering has no place for it)";
  }
  if (verdict.action === "keep") {
    return "kept: a claim holds data, so an update never deletes it; it is deleted with its Component (unless uninstall --keep-data keeps it)";
  }
  return undefined;
}
