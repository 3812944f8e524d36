/**
 * The pods a StatefulSet will never replace on its own (pure). With the default OrderedReady policy,
 * the StatefulSet controller makes no progress while a pod is not Running and Ready, even one of an
 * old revision that its rollout would replace: reverting a bad template (a rollback) waits forever on
 * the pod that the bad template broke. Kubernetes documents the remedy ("Forced rollback",
 * https://kubernetes.io/docs/concepts/workloads/controllers/statefulset/#forced-rollback): delete
 * those pods, and the StatefulSet recreates them from the current template.
 */
import type { V1Pod, V1StatefulSet } from "@kubernetes/client-node";

/** The label the StatefulSet controller puts on each pod: the revision it was created from. */
export const revisionLabel = "controller-revision-hash";

const isReady = (pod: V1Pod) =>
  pod.status?.conditions?.some((condition) => condition.type === "Ready" && condition.status === "True") ??
  false;

/**
 * The pods of `statefulSet` that are not Ready and were created from a revision other than the one it
 * rolls out, once the StatefulSet controller has observed its current template; none otherwise.
 */
export function stuckOldRevisionPods(statefulSet: V1StatefulSet, pods: readonly V1Pod[]): V1Pod[] {
  const status = statefulSet.status;
  const updateRevision = status?.updateRevision;
  if (!updateRevision || (status?.observedGeneration ?? 0) < (statefulSet.metadata?.generation ?? 0))
    return [];
  return pods.filter(
    (pod) =>
      !pod.metadata?.deletionTimestamp &&
      pod.metadata?.labels?.[revisionLabel] !== undefined &&
      pod.metadata.labels[revisionLabel] !== updateRevision &&
      !isReady(pod),
  );
}
