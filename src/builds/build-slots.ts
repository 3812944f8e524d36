/**
 * Build slots (`maxConcurrentBuilds`): who holds one, and whether a build may take the next. Pure.
 *
 * A slot is held only by a build Job of this operator's that is running: one whose controller owner
 * reference (or, in the shared build namespace, whose tie labels) names an ImageBuild the operator
 * holds with that uid, neither suspended nor finished. Anyone may create a Job with the builds'
 * labels; such a Job holds nothing. A slot counts for the namespace of the ImageBuild, not the Job's.
 *
 * Fair share while others wait: with `n` namespaces contending (holding a slot, or with a build
 * waiting for one, the asking build's own included), each one's share is max(1, ⌊max / n⌋). A build
 * whose namespace holds fewer than its share may take any free slot; one whose namespace holds its
 * share or more may take a free slot only when more are free than the other waiting namespaces
 * still below their share could claim (each: the fewer of its waiting builds and its share minus
 * what it holds). So the next slot freed goes to a namespace below its share while one waits.
 */
import { type ImageBuild, ImageBuildKind } from "../apis/builds/imagebuild.ts";
import type { KubeObject } from "../kube/types.ts";
import { ownerLabels, ownerNameAnnotation } from "./build-namespace.ts";

/** Builds per namespace: the slots they hold, or how many wait for one. */
export type PerNamespace = ReadonlyMap<string, number>;

export interface SlotUsage {
  held: PerNamespace;
  /** Builds waiting for a slot (queuedBuild), the asking one aside. */
  waiting: PerNamespace;
}

/** The reason of the `Succeeded` condition of a build waiting for a slot. */
export const queuedReason = "Queued";

export type SlotVerdict = { granted: true } | { granted: false; message: string };

/** The ImageBuild (namespace, name) the operator holds, for its uid. */
export type BuildLookup = (namespace: string, name: string) => { metadata: { uid?: string } } | undefined;

interface JobLike extends KubeObject {
  spec?: { suspend?: boolean };
  status?: { conditions?: { type: string; status: string }[] };
}

/** Conditions that end a Job (SuccessCriteriaMet and FailureTarget come just before Complete and Failed). */
const finishedConditions = ["Complete", "Failed", "SuccessCriteriaMet", "FailureTarget"];

function running(job: JobLike): boolean {
  if (job.spec?.suspend === true) return false;
  return !job.status?.conditions?.some((c) => finishedConditions.includes(c.type) && c.status === "True");
}

/** The ImageBuild a Job claims to be for: its controller owner reference, or its tie labels (another namespace). */
function claimedBuild(job: JobLike): { namespace: string; name: string; uid: string } | undefined {
  const namespace = job.metadata?.namespace ?? "";
  const owner = job.metadata?.ownerReferences?.find((o) => o.controller === true);
  if (owner)
    return owner.kind === ImageBuildKind.kind && owner.apiVersion.split("/")[0] === ImageBuildKind.group
      ? { namespace, name: owner.name, uid: owner.uid }
      : undefined;
  const tiedNamespace = job.metadata?.labels?.[ownerLabels.namespace];
  const uid = job.metadata?.labels?.[ownerLabels.uid];
  const name = job.metadata?.annotations?.[ownerNameAnnotation];
  // a tie names another namespace: a Job tied to a build of its own would be owned instead
  if (!tiedNamespace || tiedNamespace === namespace || !uid || !name) return undefined;
  return { namespace: tiedNamespace, name, uid };
}

/** The namespace whose slot `job` holds, or undefined when it holds none. */
export function slotHolder(job: JobLike, builds: BuildLookup): string | undefined {
  if (!running(job)) return undefined;
  const claimed = claimedBuild(job);
  if (!claimed?.uid) return undefined;
  return builds(claimed.namespace, claimed.name)?.metadata.uid === claimed.uid
    ? claimed.namespace
    : undefined;
}

/** A build that waits for a slot: Pending, Queued, for its current generation. */
export function queuedBuild(build: ImageBuild): boolean {
  const { status } = build;
  return (
    status?.phase === "Pending" &&
    status.observedGeneration === build.metadata.generation &&
    status.conditions?.some((c) => c.type === "Succeeded" && c.reason === queuedReason) === true
  );
}

/** How many of `namespaces` there are of each. */
export function countPerNamespace(namespaces: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const namespace of namespaces) counts.set(namespace, (counts.get(namespace) ?? 0) + 1);
  return counts;
}

const total = (counts: PerNamespace) => [...counts.values()].reduce((sum, n) => sum + n, 0);

/** Each contending namespace's share of `max` slots (at least one). */
export function fairShare(usage: SlotUsage, namespace: string, max: number): number {
  const contending = new Set([namespace, ...usage.held.keys(), ...usage.waiting.keys()]);
  return Math.max(1, Math.floor(max / contending.size));
}

/** Whether a build of `namespace` may start a run now, with `max` slots (maxConcurrentBuilds). */
export function claimSlot(usage: SlotUsage, namespace: string, max: number): SlotVerdict {
  const inUse = total(usage.held);
  if (inUse >= max)
    return { granted: false, message: `waiting: ${inUse} builds running (maxConcurrentBuilds ${max})` };
  const share = fairShare(usage, namespace, max);
  const own = usage.held.get(namespace) ?? 0;
  if (own < share) return { granted: true };
  let claimable = 0;
  for (const [other, waiting] of usage.waiting) {
    if (other === namespace) continue;
    claimable += Math.min(waiting, Math.max(0, share - (usage.held.get(other) ?? 0)));
  }
  if (max - inUse > claimable) return { granted: true };
  return {
    granted: false,
    message: `waiting: namespace ${namespace} holds ${own} of ${max} build slots, its fair share while builds of other namespaces wait (maxConcurrentBuilds ${max})`,
  };
}
