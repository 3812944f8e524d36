import type { KubeObject } from "./types.ts";

const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined) =>
  (a ?? []).length === (b ?? []).length && (a ?? []).every((value, i) => value === (b ?? [])[i]);

function sameMap(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const left = Object.entries(a ?? {});
  if (left.length !== Object.keys(b ?? {}).length) return false;
  return left.every(([name, value]) => b?.[name] === value);
}

/**
 * Whether an update of a reconciled (`for`) object should enqueue it. Yes when its generation
 * changed (spec), or when what a reconciler acts on outside the spec changed: deletionTimestamp,
 * finalizers, labels, annotations. No for status-only writes (which include the reconciler's own),
 * so a status write does not trigger another reconcile. Objects without a generation (no spec
 * versioning) are always enqueued when their resourceVersion changed.
 */
export function shouldReconcileUpdate(oldObject: KubeObject, newObject: KubeObject): boolean {
  const before = oldObject.metadata ?? {};
  const after = newObject.metadata ?? {};
  if (before.resourceVersion === after.resourceVersion && before.resourceVersion !== undefined) return false;
  if (after.generation === undefined) return true;
  return (
    before.generation !== after.generation ||
    String(before.deletionTimestamp ?? "") !== String(after.deletionTimestamp ?? "") ||
    !sameList(before.finalizers, after.finalizers) ||
    !sameMap(before.labels, after.labels) ||
    !sameMap(before.annotations, after.annotations)
  );
}
