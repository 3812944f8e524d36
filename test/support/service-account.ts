import { writeFile } from "node:fs/promises";
import {
  CoreV1Api,
  type KubeConfig,
  RbacAuthorizationV1Api,
  type V1PolicyRule,
} from "@kubernetes/client-node";
import { userKubeConfig } from "../../src/server/auth.ts";
import { adminConfig } from "./cluster.ts";

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
  if (!minted.status?.token) throw new Error(`no token for ${namespace}/${name}`);
  return userKubeConfig(admin, minted.status.token);
}

/** A Role `name` with `rules` in `namespace`, bound to the namespace's ServiceAccount `serviceAccount`. */
export async function grantRole(
  namespace: string,
  serviceAccount: string,
  name: string,
  rules: V1PolicyRule[],
): Promise<void> {
  const rbac = adminConfig().makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules } });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
      subjects: [{ kind: "ServiceAccount", name: serviceAccount, namespace }],
    },
  });
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
