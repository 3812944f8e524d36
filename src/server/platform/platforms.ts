import { CustomObjectsApi, type KubeConfig, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { resourceTypeOf } from "../../apis/kind.ts";
import { PlatformKind, type PlatformResource } from "../../apis/platform/platform.ts";
import type { RestClient } from "../../kube/rest.ts";
import { readObject } from "../caller-reads.ts";

/** Which Platform the server shows: one per server, set on the command line. */
export interface PlatformKey {
  namespace: string;
  name: string;
}

const coordinates = (key: PlatformKey) => ({
  group: PlatformKind.group,
  version: PlatformKind.version,
  plural: PlatformKind.plural,
  namespace: key.namespace,
});

/** The Platform, read as the caller with their lean client (src/server/caller-reads.ts). */
export function readPlatform(rest: RestClient, key: PlatformKey): Promise<PlatformResource> {
  return readObject<PlatformResource>(rest, resourceTypeOf(PlatformKind), key.namespace, key.name);
}

/**
 * Sets spec.version (and spec.acknowledgedGates, when given) with a merge patch that carries the
 * resourceVersion read before deciding, so a concurrent change makes the API server answer 409
 * instead of the decision going stale.
 */
export async function setPlatformVersion(
  kube: KubeConfig,
  key: PlatformKey,
  resourceVersion: string,
  version: string,
  acknowledgedGates?: readonly string[],
): Promise<PlatformResource> {
  const api = kube.makeApiClient(CustomObjectsApi);
  return (await api.patchNamespacedCustomObject(
    {
      ...coordinates(key),
      name: key.name,
      fieldManager: "slipway-server",
      body: {
        metadata: { resourceVersion },
        spec: { version, ...(acknowledgedGates ? { acknowledgedGates } : {}) },
      },
    },
    setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
  )) as PlatformResource;
}
