/**
 * Which of a Component's claims its workload should wait for (pure). A claim whose StorageClass binds
 * at once (volumeBindingMode Immediate, the default) is provisioned before any pod needs it; a pod
 * created while it is still Pending is found unschedulable and tried again only after the
 * scheduler's backoff, which grows with every try while a slow provisioner works. Creating the
 * workload once the claim is Bound avoids that. With WaitForFirstConsumer the pod is what starts the
 * binding, so nothing is waited for; nor for a claim without a known class (static volumes).
 */
import type { V1PersistentVolumeClaim, V1StorageClass } from "@kubernetes/client-node";

export interface AwaitedClaim {
  name: string;
  /** Since the claim was created. */
  pendingSeconds: number;
}

export function claimsToAwait(
  claims: readonly V1PersistentVolumeClaim[],
  classes: readonly Pick<V1StorageClass, "metadata" | "volumeBindingMode">[],
  now: Date,
): AwaitedClaim[] {
  return claims
    .filter((claim) => claim.status?.phase !== "Bound")
    .filter((claim) => {
      const className = claim.spec?.storageClassName;
      const storageClass = className ? classes.find((c) => c.metadata?.name === className) : undefined;
      return storageClass !== undefined && (storageClass.volumeBindingMode ?? "Immediate") === "Immediate";
    })
    .map((claim) => {
      const created = claim.metadata?.creationTimestamp;
      const pendingSeconds = created ? Math.max(0, (now.getTime() - new Date(created).getTime()) / 1000) : 0;
      return { name: claim.metadata?.name ?? "?", pendingSeconds };
    });
}
