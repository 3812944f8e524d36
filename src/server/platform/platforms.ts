import { CustomObjectsApi, type KubeConfig, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { PlatformKind, type PlatformResource } from "../../apis/platform/platform.ts";

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

export async function readPlatform(kube: KubeConfig, key: PlatformKey): Promise<PlatformResource> {
  const api = kube.makeApiClient(CustomObjectsApi);
  return (await api.getNamespacedCustomObject({ ...coordinates(key), name: key.name })) as PlatformResource;
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
