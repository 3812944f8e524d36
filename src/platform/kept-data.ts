/**
 * What `slipway uninstall --keep-data` leaves behind for the next install: the platform's volume claims
 * and credential Secrets, without their owner (so deleting the Platform does not delete them) and
 * marked with the Platform they were kept for. One rule for both kinds: an object is taken back only
 * when it has no owner and carries that mark for the Platform taking it (pure).
 */
import type { KubeObject } from "../kube/types.ts";

/** The mark: its value is the name of the Platform the object was kept for. */
export const keptForAnnotation = "platform.slipway.dev/kept-for";

/** The JSON merge patch that keeps an object for Platform `platform`: no owner, the mark. */
export function keepPatch(platform: string) {
  return { metadata: { ownerReferences: null, annotations: { [keptForAnnotation]: platform } } };
}

/** Whether `live` was kept by `uninstall --keep-data` for Platform `platform` and is still unowned. */
export function keptFor(live: KubeObject, platform: string): boolean {
  return (
    !live.metadata?.ownerReferences?.length && live.metadata?.annotations?.[keptForAnnotation] === platform
  );
}
