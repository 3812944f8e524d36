import { CoreV1Api, type KubeConfig, RbacAuthorizationV1Api } from "@kubernetes/client-node";

const name = "slipway-demo-user";

async function ignoreConflict(create: Promise<unknown>): Promise<void> {
  await create.catch((error) => {
    if ((error as { code?: number }).code !== 409) throw error;
  });
}

/**
 * A ServiceAccount allowed to read and update the Platform in `namespace` (and nothing else), and a
 * token of it for signing in to the web UI of the demo. The token is printed once to the terminal of
 * the person who ran the demo; it expires after a day.
 */
export async function demoUserToken(config: KubeConfig, namespace: string): Promise<string> {
  const core = config.makeApiClient(CoreV1Api);
  const rbac = config.makeApiClient(RbacAuthorizationV1Api);
  await ignoreConflict(core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } }));
  await ignoreConflict(
    rbac.createNamespacedRole({
      namespace,
      body: {
        metadata: { name },
        rules: [
          {
            apiGroups: ["platform.slipway.dev"],
            resources: ["platforms", "components"],
            verbs: ["get", "list", "watch", "patch", "update"],
          },
        ],
      },
    }),
  );
  await ignoreConflict(
    rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
        subjects: [{ kind: "ServiceAccount", name, namespace }],
      },
    }),
  );
  const request = await core.createNamespacedServiceAccountToken({
    namespace,
    name,
    body: { spec: { audiences: [], expirationSeconds: 86_400 } },
  });
  const token = request.status?.token;
  if (!token) throw new Error(`the API server returned no token for ${namespace}/${name}`);
  return token;
}
