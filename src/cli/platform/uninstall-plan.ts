/**
 * What `slipway uninstall` does with the CRDs and the objects of their kinds (pure): the CRDs go
 * only when no namespace but the one uninstalled holds objects of them (or `--delete-crds` says so,
 * deleting those too), and every object that is about to go with its namespace or its CRD is
 * deleted while the operator still runs, so it can process the object's finalizer; what is left
 * after the wait has its finalizers cleared. Removing the operator first would leave those
 * finalizers to no one, and the API server would hold the CRD (or the namespace) until the timeout.
 */

/** An object of one of the CRDs' kinds, as a census sees it. */
export interface HeldObject {
  kind: string;
  /** Undefined for a cluster-scoped kind. */
  namespace?: string;
  name: string;
  finalizers: string[];
}

export type CrdDecision =
  | { delete: true }
  | { delete: false; why: "asked" | "absent" }
  | { delete: false; why: "held"; held: string };

/** Per kind, per namespace (other than `own`), how many objects: e.g. `ImageBuild: 2 (team-a 1, team-b 1)`. */
export function heldElsewhere(objects: HeldObject[], own: string): string[] {
  const byKind = new Map<string, Map<string, number>>();
  for (const object of objects) {
    if (object.namespace === own) continue;
    const namespaces = byKind.get(object.kind) ?? new Map<string, number>();
    const where = object.namespace ?? "(cluster)";
    namespaces.set(where, (namespaces.get(where) ?? 0) + 1);
    byKind.set(object.kind, namespaces);
  }
  return [...byKind.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, namespaces]) => {
      const total = [...namespaces.values()].reduce((sum, count) => sum + count, 0);
      const where = [...namespaces.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([namespace, count]) => `${namespace} ${count}`);
      return `${kind}: ${total} (${where.join(", ")})`;
    });
}

export function crdDecision(
  flags: { keepCrds?: boolean; deleteCrds?: boolean },
  crdsExist: boolean,
  objects: HeldObject[],
  own: string,
): CrdDecision {
  if (flags.keepCrds) return { delete: false, why: "asked" };
  if (!crdsExist) return { delete: false, why: "absent" };
  if (flags.deleteCrds) return { delete: true };
  const held = heldElsewhere(objects, own);
  return held.length ? { delete: false, why: "held", held: held.join("; ") } : { delete: true };
}

/** The objects that go with the uninstall: all of them when the CRDs go, else those of a namespace that goes. */
export function objectsToDrain<T extends HeldObject>(
  objects: T[],
  own: string,
  goes: { crds: boolean; namespace: boolean },
): T[] {
  if (goes.crds) return objects;
  return goes.namespace ? objects.filter((object) => object.namespace === own) : [];
}
