import type { V1OwnerReference } from "@kubernetes/client-node";
import type { KubeObject } from "./types.ts";

/** An owner reference to `owner`, to put in a child's metadata.ownerReferences. */
export function ownerReference(
  owner: KubeObject,
  options: { controller?: boolean; blockOwnerDeletion?: boolean } = {
    controller: true,
    blockOwnerDeletion: true,
  },
): V1OwnerReference {
  const { apiVersion, kind, metadata } = owner;
  if (!apiVersion || !kind || !metadata?.name || !metadata.uid) {
    throw new Error("an owner reference needs the owner's apiVersion, kind, metadata.name and metadata.uid");
  }
  return {
    apiVersion,
    kind,
    name: metadata.name,
    uid: metadata.uid,
    ...(options.controller === undefined ? {} : { controller: options.controller }),
    ...(options.blockOwnerDeletion === undefined ? {} : { blockOwnerDeletion: options.blockOwnerDeletion }),
  };
}

/** The owner reference marked controller: true, if any. */
export function controllerOf(object: KubeObject): V1OwnerReference | undefined {
  return object.metadata?.ownerReferences?.find((ref) => ref.controller === true);
}
