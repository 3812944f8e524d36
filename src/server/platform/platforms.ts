import { resourceTypeOf } from "../../apis/kind.ts";
import { PlatformKind, type PlatformResource } from "../../apis/platform/platform.ts";
import { resourcePath } from "../../kube/keys.ts";
import type { RestClient } from "../../kube/rest.ts";
import { readObject } from "../caller-reads.ts";

/** Which Platform the server shows: one per server, set on the command line. */
export interface PlatformKey {
  namespace: string;
  name: string;
}

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
  rest: RestClient,
  key: PlatformKey,
  resourceVersion: string,
  version: string,
  acknowledgedGates?: readonly string[],
): Promise<PlatformResource> {
  return rest.request<PlatformResource>("PATCH", resourcePath(resourceTypeOf(PlatformKind), key), {
    query: { fieldManager: "slipway-server" },
    contentType: "application/merge-patch+json",
    body: {
      metadata: { resourceVersion },
      spec: { version, ...(acknowledgedGates ? { acknowledgedGates } : {}) },
    },
  });
}
