/**
 * The operations port with --ops-require-token, on the real API server: the Manager runs as a
 * ServiceAccount holding only the bundle's operatorOpsGrants; callers present their own tokens.
 */
import { CoreV1Api, RbacAuthorizationV1Api } from "@kubernetes/client-node";
import pino from "pino";
import { describe, expect, it, onTestFinished } from "vitest";
import { inNamespace, operatorName } from "../../../src/bundle/bundle.ts";
import { operatorOpsGrants } from "../../../src/bundle/grants.ts";
import { Manager } from "../../../src/kube/manager.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";
import { applyRbac } from "../../support/operator-rbac.ts";
import { serviceAccountConfig } from "../../support/service-account.ts";

async function tokenOf(namespace: string, name: string): Promise<string> {
  const core = adminConfig().makeApiClient(CoreV1Api);
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } }).catch(() => {});
  const minted = await core.createNamespacedServiceAccountToken({
    name,
    namespace,
    body: { spec: { expirationSeconds: 3600 } },
  });
  return minted.status?.token ?? "";
}

describe("the operator's ops port requiring a token", () => {
  it("answers /metrics and the status route only to users RBAC allows; the probes stay open", async () => {
    const namespace = await testNamespace("ops");
    await tokenOf(namespace, operatorName);
    const grants = inNamespace(operatorOpsGrants("test"), namespace);
    await applyRbac(grants);
    const reader = grants.find((o) => o.kind === "ClusterRole")?.metadata?.name ?? "";
    const rbac = adminConfig().makeApiClient(RbacAuthorizationV1Api);
    const bindingName = `ops-reader-${namespace}`;
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: bindingName },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: reader },
        subjects: [{ kind: "ServiceAccount", name: "prometheus", namespace }],
      },
    });
    onTestFinished(() => rbac.deleteClusterRoleBinding({ name: bindingName }).then(() => undefined));
    const [allowed, other] = [await tokenOf(namespace, "prometheus"), await tokenOf(namespace, "nobody")];

    const manager = new Manager({
      kubeConfig: await serviceAccountConfig(adminConfig(), namespace, operatorName),
      namespace,
      fieldManager: "ops-test",
      metricsPort: 0,
      healthPort: 0,
      opsRequireToken: true,
      log: pino({ level: "silent" }),
    });
    onTestFinished(() => manager.stop());
    await manager.start();
    const get = (path: string, token?: string) =>
      fetch(`http://127.0.0.1:${manager.ports.health}${path}`, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
    const status = `/namespaces/${namespace}/platforms/slipway/status`;

    expect((await get("/healthz")).status).toBe(200);
    expect((await get("/readyz")).status).toBe(200);
    const anonymous = await get("/metrics");
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe("Bearer");
    expect((await get(status)).status).toBe(401);
    expect((await get("/metrics", "not-a-token")).status).toBe(401);
    expect((await get("/metrics", other)).status).toBe(403);
    expect((await get(status, other)).status).toBe(403);
    const metrics = await get("/metrics", allowed);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain("rest_client_requests_total");
    // allowed through; no such route here
    expect((await get(status, allowed)).status).toBe(404);
  });
});
