/**
 * The operator's token requests by name, on the real API server: with the bundle's RBAC for a
 * Provider ServiceAccount allowlist, kfp's minted-token path (bearerToken, as the operator) gets a
 * token for an allowlisted ServiceAccount, one the API server authenticates as that account, and a
 * 403 for any other; with no allowlist the operator may request no token at all.
 */
import { AuthenticationV1Api, CoreV1Api } from "@kubernetes/client-node";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { bundleFor, operatorName } from "../../../src/bundle/bundle.ts";
import { Manager } from "../../../src/kube/manager.ts";
import { allControllers } from "../../../src/operator/controllers.ts";
import { bearerToken } from "../../../src/pipelines/kfp/auth.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";
import { applyRbac, bundleOptions } from "../../support/operator-rbac.ts";
import { serviceAccountConfig } from "../../support/service-account.ts";
import { statusOf } from "./request-status.ts";

const audience = "pipelines.kubeflow.org";
const tokenAuth = (serviceAccount: string) =>
  ({ type: "serviceAccountToken", serviceAccount, audience, expirationSeconds: 600 }) as const;

/** A namespace with ServiceAccounts `names` and the operator's bundle RBAC for `allowlist`; the operator's client. */
async function operatorWith(allowlist: string[], names: string[]) {
  const namespace = await testNamespace("token-names");
  await applyRbac(
    bundleFor(namespace, { ...bundleOptions(allControllers()), providerServiceAccounts: allowlist }),
  );
  const core = adminConfig().makeApiClient(CoreV1Api);
  for (const name of names)
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  const manager = new Manager({
    kubeConfig: await serviceAccountConfig(adminConfig(), namespace, operatorName),
    namespaces: [namespace],
    fieldManager: "slipway-operator",
    log: pino({ level: "silent" }),
  });
  const request = (name: string) =>
    manager.rest.request("POST", `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
      body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { audiences: [audience] } },
    });
  return { namespace, client: manager.client, request };
}

async function authenticatedAs(token: string): Promise<string | undefined> {
  const review = await adminConfig()
    .makeApiClient(AuthenticationV1Api)
    .createTokenReview({ body: { spec: { token, audiences: [audience] } } });
  return review.status?.authenticated ? review.status.user?.username : undefined;
}

describe("the operator's token requests by name", () => {
  it("mints a kfp token for an allowlisted ServiceAccount (namespace/name and */name), 403 for any other", async () => {
    const { namespace, client, request } = await operatorWith(
      ["*/kfp-client", "elsewhere/runner"],
      ["kfp-client", "runner", "namespace-admin"],
    );
    const token = await bearerToken(client, namespace, tokenAuth("kfp-client"));
    expect(await authenticatedAs(token ?? "")).toBe(`system:serviceaccount:${namespace}:kfp-client`);
    await expect(bearerToken(client, namespace, tokenAuth("namespace-admin"))).rejects.toThrow(
      `spec.parameters.auth.serviceAccountToken: no token for ServiceAccount ${namespace}/namespace-admin`,
    );
    expect(await statusOf(request("namespace-admin"))).toBe(403);
    // a name is granted in every namespace served, whichever namespace its entry names (the
    // allowlist in the operator refuses a Provider of this namespace naming `runner`)
    expect(await statusOf(request("runner"))).toBe(200);
  });

  it("requests no token without an allowlist", async () => {
    const { request } = await operatorWith([], ["kfp-client"]);
    expect(await statusOf(request("kfp-client"))).toBe(403);
  });
});
