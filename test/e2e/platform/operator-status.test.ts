/**
 * A platform installed through the CLI with `slipway operator` running as its own process: the
 * operator's cache-backed status endpoint, and the api-server's right to review tokens.
 */
import { AppsV1Api, AuthenticationV1Api, CoreV1Api, RbacAuthorizationV1Api } from "@kubernetes/client-node";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Manager } from "../../../src/kube/manager.ts";
import { adminConfig } from "../../support/cluster.ts";
import { userKubeConfig } from "../../support/fakes/user-kubeconfig.ts";
import {
  cli,
  type OperatorProcess,
  operatorHealthPort,
  readPlatform,
  startOperator,
  suiteNamespace,
} from "./support.ts";

let namespace: string;
let removeNamespace: () => Promise<void>;
let operator: OperatorProcess;
let base: string;

beforeAll(async () => {
  ({ name: namespace, remove: removeNamespace } = await suiteNamespace("opstat"));
  operator = startOperator(namespace);
  base = `http://127.0.0.1:${await operatorHealthPort(operator)}`;
});

afterAll(async () => {
  await operator?.kill();
  await removeNamespace?.();
});

const restRequests = async () => {
  const text = await (await fetch(`${base}/metrics`)).text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("rest_client_requests_total{"))
    .reduce((sum, line) => sum + Number(line.split(" ").pop()), 0);
};

describe.sequential("an installed platform and its operator", () => {
  it("installs to Running", { timeout: 300_000 }, async () => {
    const result = await cli(namespace, "install", "--dev", "--timeout", "4m");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("is Running");
  });

  it("the operator answers the Platform's status from its cache, with no API request", async () => {
    const url = `${base}/namespaces/${namespace}/platforms/slipway/status`;
    const stored = (await readPlatform(namespace)).status;
    const answer = await fetch(url);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/json");
    const body = (await answer.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      namespace,
      name: "slipway",
      phase: stored?.phase,
      version: stored?.version,
      ready: "7/7",
      conditions: stored?.conditions,
      components: stored?.components,
    });
    expect(body.phase).toBe("Running");

    // Were each answer an API request, the client's request count would grow by at least `reads`.
    const reads = 20;
    const before = await restRequests();
    expect(before).toBeGreaterThan(0); // the metric is there: the operator listed and watched
    for (let i = 0; i < reads; i++) expect((await fetch(url)).status).toBe(200);
    expect((await restRequests()) - before).toBeLessThan(reads);

    const missing = await fetch(`${base}/namespaces/${namespace}/platforms/nope/status`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      statusCode: 404,
      message: expect.stringContaining(`platform nope in namespace ${namespace}`),
    });
    const unwatched = await fetch(`${base}/namespaces/kube-system/platforms/slipway/status`);
    expect(unwatched.status).toBe(404);
    const post = await fetch(url, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
    expect(await post.json()).toMatchObject({ statusCode: 405, error: "Method Not Allowed" });
  });

  it("a cache route answers 503 while the cache it reads has not synced", async () => {
    // a kind the API server does not serve never syncs
    const missingKind = {
      group: "nothing.slipway.dev",
      version: "v1",
      kind: "Nothing",
      plural: "nothings",
      namespaced: true,
    };
    const manager = new Manager({
      kubeConfig: adminConfig(),
      namespace,
      fieldManager: "status-route-test",
      healthPort: 0,
      log: pino({ level: "silent" }),
      routes: [{ path: "/nothings/:name", reads: [missingKind], get: () => ({ status: 200, body: {} }) }],
    });
    await manager.start();
    try {
      const answer = await fetch(`http://127.0.0.1:${manager.ports.health}/nothings/x`);
      expect(answer.status).toBe(503);
      expect(await answer.json()).toMatchObject({ statusCode: 503, error: "Service Unavailable" });
    } finally {
      await manager.stop();
    }
  });

  it("the api-server runs as its own ServiceAccount, which may review tokens (and the default one may not)", async () => {
    const deployment = await adminConfig()
      .makeApiClient(AppsV1Api)
      .readNamespacedDeployment({ name: "slipway-api-server", namespace });
    expect(deployment.spec?.template.spec?.serviceAccountName).toBe("slipway-api-server");
    const core = adminConfig().makeApiClient(CoreV1Api);
    const account = await core.readNamespacedServiceAccount({ name: "slipway-api-server", namespace });
    expect(account.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: "Component",
      name: "slipway-api-server",
    });

    const tokenOf = async (name: string) =>
      (
        await core.createNamespacedServiceAccountToken({
          name,
          namespace,
          body: { spec: { audiences: [], expirationSeconds: 600 } },
        })
      ).status?.token ?? "";
    const review = (asToken: string, token: string) =>
      userKubeConfig(adminConfig(), asToken)
        .makeApiClient(AuthenticationV1Api)
        .createTokenReview({ body: { spec: { token } } });
    const serverToken = await tokenOf("slipway-api-server");
    const callerToken = await tokenOf("default");
    const reviewed = await review(serverToken, callerToken);
    expect(reviewed.status).toMatchObject({
      authenticated: true,
      user: { username: `system:serviceaccount:${namespace}:default` },
    });
    await expect(review(callerToken, serverToken)).rejects.toMatchObject({ code: 403 });
  });

  it("uninstall removes the api-server's ClusterRoleBinding", { timeout: 300_000 }, async () => {
    const rbac = adminConfig().makeApiClient(RbacAuthorizationV1Api);
    const name = `slipway-api-server-${namespace}`;
    expect((await rbac.readClusterRoleBinding({ name })).roleRef.name).toBe("system:auth-delegator");
    const result = await cli(namespace, "uninstall", "--yes", "--keep-crds", "--timeout", "4m");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    await expect(rbac.readClusterRoleBinding({ name })).rejects.toMatchObject({ code: 404 });
  });
});
