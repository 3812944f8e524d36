/**
 * `slipway dev`'s Kubernetes calls go through the product's one client stack (src/kube/rest.ts, the
 * operator's, the CLI's and the server's): a client for one piece of work, its kept-alive
 * connections closed when the work is done.
 */
import { KubeClient } from "../kube/client.ts";
import { ResourceTypes } from "../kube/discovery.ts";
import { type ClusterAccess, loadClusterAccess } from "../kube/kubeconfig.ts";
import { isConflict, RestClient } from "../kube/rest.ts";

/** The field manager of what `slipway dev` applies. */
export const devFieldManager = "slipway-dev";

export interface DevClient {
  rest: RestClient;
  /** Server-side apply and reads of any kind the API server serves (found by discovery). */
  kube: KubeClient;
  /** apiVersion and kind → the resource (discovery). */
  types: ResourceTypes;
}

/** Runs `work` with a client of `access` (or of the kubeconfig file at that path); closes it after. */
export async function withDevClient<T>(
  access: ClusterAccess | string,
  work: (client: DevClient) => Promise<T>,
  fieldManager = devFieldManager,
): Promise<T> {
  const loaded = typeof access === "string" ? await loadClusterAccess({ kubeconfig: access }) : access;
  const rest = new RestClient(loaded, { userAgent: fieldManager });
  const types = new ResourceTypes(rest);
  try {
    return await work({ rest, types, kube: new KubeClient(rest, types, { fieldManager }) });
  } finally {
    rest.close();
  }
}

/** Resolves when the create succeeded or the object already exists (409). */
export async function ignoreConflict(create: Promise<unknown>): Promise<void> {
  try {
    await create;
  } catch (error) {
    if (!isConflict(error)) throw error;
  }
}
