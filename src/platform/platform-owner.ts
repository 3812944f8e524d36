/**
 * Whether a Platform controls an object (pure): its controller reference names a Platform, and the
 * Platform of that name in the object's namespace has the reference's uid. An owner reference is
 * written by whoever creates the object, so the uid check is what ties it to a Platform that exists.
 */
import type { V1OwnerReference } from "@kubernetes/client-node";
import type { PlatformResource } from "../apis/platform/platform.ts";
import { groupOf } from "../kube/keys.ts";
import { controllerOf } from "../kube/owners.ts";
import type { Cache, KubeObject } from "../kube/types.ts";
import { types } from "./resource-types.ts";

/** The controller reference of `object` when it names a Platform (any version of its group). */
export function platformReference(object: KubeObject): V1OwnerReference | undefined {
  const owner = controllerOf(object);
  const isPlatform =
    owner?.kind === types.platform.kind && groupOf(owner.apiVersion ?? "") === types.platform.group;
  return isPlatform ? owner : undefined;
}

/** The cached Platform the controller reference of `object` names, in its namespace (whatever its uid). */
export function referencedPlatform(
  cache: Pick<Cache, "get">,
  object: KubeObject,
): PlatformResource | undefined {
  const owner = platformReference(object);
  if (!owner) return undefined;
  return cache.get<PlatformResource>(types.platform, {
    namespace: object.metadata?.namespace,
    name: owner.name,
  });
}

/** True when `platform` (the one the reference names, see referencedPlatform) is the one that controls `object`. */
export function controlledBy(object: KubeObject, platform: PlatformResource | undefined): boolean {
  const owner = platformReference(object);
  return owner !== undefined && platform !== undefined && platform.metadata.uid === owner.uid;
}
