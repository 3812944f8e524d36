import { writeFile } from "node:fs/promises";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";

/**
 * A kubeconfig for the cluster of `admin` that authenticates as a ServiceAccount (a token minted
 * with TokenRequest): a process run with it has exactly that account's rights.
 */
export async function serviceAccountConfig(
  admin: KubeConfig,
  namespace: string,
  name: string,
): Promise<KubeConfig> {
  const minted = await admin.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
    name,
    namespace,
    body: { spec: { expirationSeconds: 3600 } },
  });
  const cluster = admin.getCurrentCluster();
  if (!cluster || !minted.status?.token) throw new Error(`no cluster or no token for ${namespace}/${name}`);
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [cluster],
    users: [{ name, token: minted.status.token }],
    contexts: [{ name, cluster: cluster.name, user: name }],
    currentContext: name,
  });
  return config;
}

/** serviceAccountConfig written to `path`, for a process that takes --kubeconfig. */
export async function writeServiceAccountKubeconfig(
  admin: KubeConfig,
  namespace: string,
  name: string,
  path: string,
): Promise<string> {
  await writeFile(path, (await serviceAccountConfig(admin, namespace, name)).exportConfig(), { mode: 0o600 });
  return path;
}
