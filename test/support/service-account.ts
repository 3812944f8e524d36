import { writeFile } from "node:fs/promises";
import {
  AuthorizationV1Api,
  CoreV1Api,
  type KubeConfig,
  RbacAuthorizationV1Api,
  type V1PolicyRule,
} from "@kubernetes/client-node";
import { adminConfig, eventually } from "./cluster.ts";
import { userKubeConfig } from "./fakes/user-kubeconfig.ts";

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

/**
 * Resolves once the API server's authorizer grants ServiceAccount `account` the first verb of each
 * rule in `namespace` (undefined: cluster-wide). The RBAC authorizer reads Roles and bindings from its
 * informers, so a request made right after a binding's create can still be refused for a moment.
 */
export async function awaitGranted(
  account: { namespace: string; name: string },
  namespace: string | undefined,
  rules: V1PolicyRule[],
): Promise<void> {
  const authorization = adminConfig().makeApiClient(AuthorizationV1Api);
  for (const rule of rules) {
    const resource = rule.resources?.[0];
    const verb = rule.verbs[0];
    if (!resource || !verb) continue;
    const [name = resource, subresource] = resource.split("/");
    await eventually(
      `${account.namespace}/${account.name} may ${verb} ${resource}`,
      () =>
        authorization.createSubjectAccessReview({
          body: {
            spec: {
              user: `system:serviceaccount:${account.namespace}:${account.name}`,
              groups: [
                "system:serviceaccounts",
                `system:serviceaccounts:${account.namespace}`,
                "system:authenticated",
              ],
              resourceAttributes: {
                namespace,
                verb,
                group: rule.apiGroups?.[0] ?? "",
                resource: name,
                subresource,
                name: rule.resourceNames?.[0],
              },
            },
          },
        }),
      (review) => review.status?.allowed === true,
      30_000,
    );
  }
}

/**
 * A Role `name` with `rules` in `namespace`, bound to the namespace's ServiceAccount `serviceAccount`;
 * resolves once the API server grants them.
 */
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
  await awaitGranted({ namespace, name: serviceAccount }, namespace, rules);
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
