/** Platforms for the tests. */
import { CustomObjectsApi } from "@kubernetes/client-node";
import { PlatformKind, type PlatformResource } from "../../src/apis/platform/platform.ts";
import { adminConfig } from "./cluster.ts";

/** Creates the Platform `name` (default `slipway`) in `namespace` as admin. */
export async function createPlatform(
  namespace: string,
  spec: object = {},
  name = "slipway",
): Promise<PlatformResource> {
  return (await adminConfig()
    .makeApiClient(CustomObjectsApi)
    .createNamespacedCustomObject({
      group: PlatformKind.group,
      version: PlatformKind.version,
      namespace,
      plural: PlatformKind.plural,
      body: { apiVersion: PlatformKind.apiVersion, kind: "Platform", metadata: { name }, spec },
    })) as PlatformResource;
}
