import {
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  PatchStrategy,
  RbacAuthorizationV1Api,
  setHeaderOptions,
} from "@kubernetes/client-node";
import { onTestFinished } from "vitest";
import { PlatformKind, type PlatformResource } from "../../../src/apis/platform/platform.ts";
import { releaseCatalog } from "../../../src/platform/version-change.ts";
import { buildServer, type ServerOptions } from "../../../src/server/app.ts";
import { adminConfig } from "../../support/cluster.ts";
import { userKubeConfig } from "../../support/fakes/user-kubeconfig.ts";
import { awaitGranted, grantRole } from "../../support/service-account.ts";

/**
 * Starts `slipway server` in this process on a free port (as the admin identity); closed after the test.
 * A concurrent test passes its context's `onTestFinished` (the global one cannot tell which test runs).
 */
export async function startServer(
  namespace: string,
  options: Partial<ServerOptions> = {},
  finished: typeof onTestFinished = onTestFinished,
): Promise<string> {
  return (await startServerApp(namespace, options, finished)).url;
}

export async function startServerApp(
  namespace: string,
  options: Partial<ServerOptions> = {},
  finished: typeof onTestFinished = onTestFinished,
) {
  const app = await buildServer({
    kubeConfig: adminConfig(),
    platform: { namespace, name: "slipway" },
    releases: releaseCatalog,
    logLevel: "silent",
    ...options,
  });
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  finished(() => app.close());
  return { url, app };
}

/** A ServiceAccount and a real token for it (TokenRequest), as a user of the UI would paste. */
export async function serviceAccountToken(namespace: string, name: string): Promise<string> {
  const core = adminConfig().makeApiClient(CoreV1Api);
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  const request = await core.createNamespacedServiceAccountToken({
    namespace,
    name,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  return request.status?.token ?? "";
}

/**
 * A kubeconfig for a server identity that may only review tokens (ClusterRole system:auth-delegator),
 * as `slipway server` runs in a cluster: it can read nothing itself.
 */
export async function tokenReviewerConfig(namespace: string): Promise<KubeConfig> {
  const token = await serviceAccountToken(namespace, "slipway-server");
  const rbac = adminConfig().makeApiClient(RbacAuthorizationV1Api);
  const name = `${namespace}-slipway-server`;
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "system:auth-delegator" },
      subjects: [{ kind: "ServiceAccount", name: "slipway-server", namespace }],
    },
  });
  onTestFinished(async () => {
    await rbac.deleteClusterRoleBinding({ name }).catch(() => {});
  });
  await awaitGranted({ namespace, name: "slipway-server" }, undefined, [
    { apiGroups: ["authentication.k8s.io"], resources: ["tokenreviews"], verbs: ["create"] },
  ]);
  return userKubeConfig(adminConfig(), token);
}

/** Lets the ServiceAccount use the Platform API of its namespace with these verbs. */
export async function grantPlatformAccess(
  namespace: string,
  serviceAccount: string,
  verbs: string[],
): Promise<void> {
  await grantRole(namespace, serviceAccount, `${serviceAccount}-platforms`, [
    { apiGroups: [PlatformKind.group], resources: [PlatformKind.plural], verbs },
  ]);
}

/** What a dry run of an update reads and dry-run writes: the Platform, its Components and their children. */
export const updatePreviewerRules = [
  {
    apiGroups: ["platform.slipway.dev"],
    resources: ["platforms", "components"],
    verbs: ["get", "list", "patch"],
  },
  { apiGroups: ["apps"], resources: ["deployments", "statefulsets"], verbs: ["get", "list", "patch"] },
  {
    apiGroups: [""],
    resources: ["services", "serviceaccounts", "configmaps", "persistentvolumeclaims"],
    verbs: ["get", "list", "patch"],
  },
  {
    apiGroups: ["networking.k8s.io"],
    resources: ["networkpolicies", "ingresses"],
    verbs: ["get", "list", "patch"],
  },
];

const platforms = () => adminConfig().makeApiClient(CustomObjectsApi);
const coordinates = (namespace: string) => ({
  group: PlatformKind.group,
  version: PlatformKind.version,
  plural: PlatformKind.plural,
  namespace,
});

export async function createPlatform(namespace: string, version: string): Promise<PlatformResource> {
  return (await platforms().createNamespacedCustomObject({
    ...coordinates(namespace),
    body: {
      apiVersion: PlatformKind.apiVersion,
      kind: PlatformKind.kind,
      metadata: { name: "slipway" },
      spec: { version },
    },
  })) as PlatformResource;
}

export async function readPlatformAsAdmin(namespace: string): Promise<PlatformResource> {
  return (await platforms().getNamespacedCustomObject({
    ...coordinates(namespace),
    name: "slipway",
  })) as PlatformResource;
}

/** Writes Platform status as the platform controller would. */
export async function writePlatformStatus(
  namespace: string,
  status: NonNullable<PlatformResource["status"]>,
) {
  await platforms().patchNamespacedCustomObjectStatus(
    { ...coordinates(namespace), name: "slipway", body: { status } },
    setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
  );
}

export interface ServerSentEvent {
  event: string;
  data: unknown;
}

/** Reads server-sent events from a streaming response; comments (heartbeats) are yielded as event ":". */
export async function* serverSentEvents(response: Response): AsyncGenerator<ServerSentEvent> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
      if (frame.startsWith(":")) {
        yield { event: ":", data: frame.slice(1).trim() };
        continue;
      }
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? "message";
      const data = [...frame.matchAll(/^data: (.*)$/gm)].map((match) => match[1]).join("\n");
      yield { event, data: JSON.parse(data) };
    }
  }
}
