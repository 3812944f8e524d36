/**
 * Changes the API server refuses because a field cannot change after creation, and what Slipway
 * does about them (pure). One rule for both the component controller, which resolves them, and
 * `slipway update --dry-run`, which says beforehand how they will be resolved.
 */
import { ApiError, type StatusCause } from "../kube/rest.ts";
import type { KubeObject } from "../kube/types.ts";
import { sameJson } from "../lib/canonical.ts";
import { annotations } from "./component-objects.ts";

/** The fields of each kind that cannot change after creation (beyond what a refusal's causes name). */
const immutablePaths: Record<string, readonly string[]> = {
  Deployment: ["spec.selector"],
  StatefulSet: ["spec.selector", "spec.serviceName", "spec.volumeClaimTemplates", "spec.podManagementPolicy"],
  Service: ["spec.clusterIP"],
  Job: ["spec.selector", "spec.template"],
  PersistentVolumeClaim: ["spec.accessModes", "spec.storageClassName", "spec.volumeName"],
};

const immutableMessage = /immutable|updates to .* are forbidden/i;

/**
 * The fields a 422 refusal says cannot change, or undefined when it refuses for another reason. A
 * cause naming only `spec` (a StatefulSet's "updates to statefulset spec for fields other than …
 * are forbidden") is narrowed to the kind's immutable fields the rendering changes.
 */
export function immutableFields(
  kind: string,
  causes: readonly StatusCause[],
  live: KubeObject | undefined,
  rendered: KubeObject,
): string[] | undefined {
  const immutable = causes.filter((cause) => immutableMessage.test(cause.message ?? ""));
  if (immutable.length === 0) return undefined;
  const named = immutable.map((cause) => cause.field ?? "");
  const changed = (immutablePaths[kind] ?? []).filter((path) => changesField(live, rendered, path));
  const fields = named.flatMap((field) => {
    const narrower = changed.filter((path) => path.startsWith(`${field}.`));
    return field === "" || narrower.length > 0 ? narrower : [field];
  });
  return [...new Set(fields.length > 0 ? fields : named)];
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const valueAt = (object: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((value, key) => (isObject(value) ? value[key] : undefined), object);

/** Whether everything `subset` sets is set to the same in `whole` (defaults the API server added aside). */
function contains(whole: unknown, subset: unknown): boolean {
  if (isObject(subset)) {
    return isObject(whole) && Object.entries(subset).every(([key, value]) => contains(whole[key], value));
  }
  if (Array.isArray(subset)) {
    return (
      Array.isArray(whole) &&
      whole.length === subset.length &&
      subset.every((item, i) => contains(whole[i], item))
    );
  }
  return sameJson(whole, subset);
}

/** Whether applying `rendered` changes `path` of `live`: it sets it differently, or drops a value there. */
function changesField(live: KubeObject | undefined, rendered: KubeObject, path: string): boolean {
  const want = valueAt(rendered, path);
  const have = valueAt(live, path);
  if (want === undefined) return Array.isArray(have) ? have.length > 0 : false;
  return !contains(have, want);
}

// --- resolution -----------------------------------------------------------------------------------

/** How a workload is deleted before it is created anew (the DeleteOptions' propagationPolicy). */
export type RecreatePropagation = "Orphan" | "Background";

export type ImmutableResolution =
  | { action: "recreate"; kind: string; fields: readonly string[]; propagationPolicy: RecreatePropagation }
  | { action: "fail"; kind: string; fields: readonly string[]; why: string };

/** A refused apply: the object as it is and as rendered, and the immutable fields the refusal names. */
export interface ImmutableRefusal {
  kind: string;
  fields: readonly string[];
  live: KubeObject | undefined;
  rendered: KubeObject;
}

/** The refusal `error` is when it is a 422 naming immutable fields of `rendered`; else undefined. */
export function immutableRefusal(
  error: unknown,
  kind: string,
  live: KubeObject | undefined,
  rendered: KubeObject,
): ImmutableRefusal | undefined {
  if (!(error instanceof ApiError) || error.status !== 422) return undefined;
  const fields = immutableFields(kind, error.causes, live, rendered);
  return fields ? { kind, fields, live, rendered } : undefined;
}

/**
 * A StatefulSet's fields whose change leaves its pods what the new StatefulSet would make: it is
 * deleted with its pods orphaned, and the new one (same selector) adopts them, running throughout.
 */
const orphanSafe: readonly string[] = ["spec.volumeClaimTemplates", "spec.podManagementPolicy"];

/**
 * What the component controller does about an apply refused because of immutable fields: a
 * Deployment or StatefulSet is deleted and created anew. Its data is in PersistentVolumeClaims the
 * Component owns (component-objects.ts: `renderClaims`), separate objects a workload's deletion
 * never touches. A StatefulSet is deleted with `Orphan` when its pods stay right for the new one
 * (only its claim templates or pod management changed), so they run on and are adopted; a changed
 * selector (the new one would not adopt them) or serviceName (their DNS subdomain) takes
 * `Background`: the old pods go and new ones start. Anything else is not recreated: a claim holds
 * data, a Service's clusterIP is not rendered; nor is an object already created from this very
 * rendering (recreating it again would be refused again: no loop), nor a StatefulSet whose deletion
 * would delete its claims (`persistentVolumeClaimRetentionPolicy.whenDeleted: Delete`) unless its
 * pods can be orphaned, which orphans the claims too.
 */
export function resolveImmutable(refusal: ImmutableRefusal): ImmutableResolution {
  const { kind, fields, live, rendered } = refusal;
  const fail = (why: string): ImmutableResolution => ({ action: "fail", kind, fields, why });
  if (kind === "PersistentVolumeClaim") return fail("a claim is never recreated: that would lose its data");
  if (kind !== "Deployment" && kind !== "StatefulSet") {
    return fail(`the component controller recreates only a Deployment or StatefulSet, not a ${kind}`);
  }
  const appliedHash = (object: KubeObject | undefined) =>
    object?.metadata?.annotations?.[annotations.appliedHash];
  if (appliedHash(live) !== undefined && appliedHash(live) === appliedHash(rendered)) {
    return fail(`the ${kind} was already created from this rendering and is refused again`);
  }
  if (kind === "Deployment") return { action: "recreate", kind, fields, propagationPolicy: "Background" };
  if (fields.every((field) => orphanSafe.includes(field))) {
    return { action: "recreate", kind, fields, propagationPolicy: "Orphan" };
  }
  const retention = valueAt(live, "spec.persistentVolumeClaimRetentionPolicy.whenDeleted");
  if (retention === "Delete") {
    return fail(
      "deleting its pods with it would delete its PersistentVolumeClaims (persistentVolumeClaimRetentionPolicy.whenDeleted: Delete)",
    );
  }
  return { action: "recreate", kind, fields, propagationPolicy: "Background" };
}

const isAre = (fields: readonly string[]) => `${fields.join(", ")} ${fields.length === 1 ? "is" : "are"}`;

/** What a recreate does to the workload's pods and data, as said in the dry run and the Event. */
function recreateEffect(
  resolution: Extract<ImmutableResolution, { action: "recreate" }>,
  claims: readonly string[],
): string {
  const pods =
    resolution.propagationPolicy === "Orphan"
      ? `deleted with propagationPolicy Orphan, so its pods keep running until the new ${resolution.kind} adopts them`
      : "deleted with propagationPolicy Background, so its pods are replaced by the new one's";
  const kept =
    claims.length > 0
      ? `; its PersistentVolumeClaim${claims.length === 1 ? "" : "s"} ${claims.join(", ")} and their data are kept`
      : "; its PersistentVolumeClaims and their data are kept";
  return `${pods}${kept}`;
}

/** The object an update refused, as `kind namespace/name`. */
export interface RefusedObject {
  kind: string;
  namespace: string;
  name: string;
}

/** What the update does about the conflict, as `slipway update --dry-run` says it. */
export function conflictResolution(
  resolution: ImmutableResolution,
  object: RefusedObject,
  claims: readonly string[],
): string {
  const { kind, namespace, name } = object;
  if (resolution.action === "recreate") {
    return `recreate ${kind} ${namespace}/${name} (${isAre(resolution.fields)} immutable): ${recreateEffect(resolution, claims)}`;
  }
  const stall = `will fail: the API server refuses the change to ${resolution.fields.join(", ")} and it is not recreated (${resolution.why}); the Component goes Failed naming the field, its reconcile is retried with backoff, and the update does not finish`;
  if (kind === "PersistentVolumeClaim") return stall;
  return `${stall}. By hand: \`kubectl delete ${kind.toLowerCase()} ${name} -n ${namespace}\` and the controller creates it anew`;
}

/** The Event `Recreated`'s message: the object, the fields and what its deletion keeps. */
export function recreatedMessage(
  resolution: Extract<ImmutableResolution, { action: "recreate" }>,
  name: string,
  claims: readonly string[],
): string {
  return `${resolution.kind} ${name} is recreated: ${isAre(resolution.fields)} immutable; ${recreateEffect(resolution, claims)}`;
}

/** The Component's message when the controller does not recreate what the API server refuses. */
export function refusedMessage(
  resolution: Extract<ImmutableResolution, { action: "fail" }>,
  name: string,
): string {
  return `${resolution.kind} ${name} cannot be updated: ${isAre(resolution.fields)} immutable and it is not recreated: ${resolution.why}`;
}
