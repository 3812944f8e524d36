/** What the installer gave the operator in the cluster, read back from its Deployment. */
import type { V1Deployment } from "@kubernetes/client-node";
import { resourcePath } from "../kube/keys.ts";
import { isNotFound, type RestClient } from "../kube/rest.ts";
import { clusterNetworksFromEnvironment } from "../pipelines/outbound-policy.ts";
import { types } from "../platform/resource-types.ts";
import { operatorName } from "./bundle.ts";

/**
 * The cluster networks (SLIPWAY_OUTBOUND_DENY) of the operator Deployment in `namespace`, which the
 * platform controller renders the api-server's trusted proxies from; none when it does not run there.
 */
export async function operatorClusterNetworks(rest: RestClient, namespace: string): Promise<string[]> {
  const path = resourcePath(types.deployment, { namespace, name: operatorName });
  const deployment = await rest.request<V1Deployment>("GET", path).catch((error: unknown) => {
    if (isNotFound(error)) return undefined;
    throw error;
  });
  const env = deployment?.spec?.template.spec?.containers[0]?.env ?? [];
  return clusterNetworksFromEnvironment(Object.fromEntries(env.map(({ name, value }) => [name, value])));
}
