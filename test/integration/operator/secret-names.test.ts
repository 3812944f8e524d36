/**
 * The operator's Secret rights by name, on the real API server: serving another namespace, its own
 * namespace's Role lets it read and rotate the webhook's serving Secret and create it, and no other
 * Secret there; in the namespaces it serves it may update no Secret but the webhook's. Each named rule,
 * removed, makes the webhook's serving-certificate code hit a 403.
 */
import { CoreV1Api, type V1Secret } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { type BundleObject, bundleFor, operatorName } from "../../../src/bundle/bundle.ts";
import { RestClient } from "../../../src/kube/rest.ts";
import { allControllers } from "../../../src/operator/controllers.ts";
import type { PolicyRule } from "../../../src/operator/rbac.ts";
import { webhookSecretName } from "../../../src/operator/webhooks.ts";
import { ensureServingSecret } from "../../../src/webhook/serving-secret.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";
import { applyRbac, bundleOptions } from "../../support/operator-rbac.ts";
import { serviceAccountConfig } from "../../support/service-account.ts";
import { statusOf } from "./request-status.ts";

const secretsPath = (namespace: string, name = "") =>
  `/api/v1/namespaces/${namespace}/secrets${name ? `/${name}` : ""}`;

async function adminSecret(namespace: string, name: string): Promise<V1Secret> {
  return adminConfig()
    .makeApiClient(CoreV1Api)
    .createNamespacedSecret({ namespace, body: { metadata: { name }, stringData: { key: "value" } } });
}

/** The operator's bundle serving `served` from `own`, its own namespace's Role with `keep` of its rules. */
function bundle(own: string, served: string, keep: (rule: PolicyRule) => boolean = () => true) {
  return bundleFor(own, { ...bundleOptions(allControllers()), serves: [served] }).map(
    (object): BundleObject =>
      object.kind === "Role" && object.metadata?.namespace === own
        ? { ...object, rules: (object.rules as PolicyRule[]).filter(keep) }
        : object,
  );
}

const operatorRest = async (own: string) =>
  new RestClient(await serviceAccountConfig(adminConfig(), own, operatorName));

const serving = (rest: RestClient, own: string, hosts = ["127.0.0.1"]) =>
  ensureServingSecret(rest, { namespace: own, name: webhookSecretName, hosts }, new Date());

describe("the operator's Secrets by name", () => {
  it("creates, reads and rotates the webhook's Secret; refused any other Secret of its namespace and updates of others", async () => {
    const own = await testNamespace("secret-own");
    const served = await testNamespace("secret-served");
    await applyRbac(bundle(own, served));
    const rest = await operatorRest(own);
    await adminSecret(own, "not-the-operators");
    const other = await adminSecret(served, "a-users");

    const issued = await serving(rest, own);
    // a new host is a reason to rotate: the Secret is updated (PUT), by name
    const rotated = await serving(rest, own, ["127.0.0.1", "localhost"]);
    expect(rotated.rotated).toBeDefined();
    expect(rotated.material.certPem).not.toBe(issued.material.certPem);

    expect(await statusOf(rest.request("GET", secretsPath(own, "not-the-operators")))).toBe(403);
    expect(await statusOf(rest.request("GET", secretsPath(own)))).toBe(403);
    // in a served namespace it reads any Secret (builds and Providers name them), but updates none
    expect(await statusOf(rest.request("GET", secretsPath(served, "a-users")))).toBe(200);
    expect(
      await statusOf(
        rest.request("PUT", secretsPath(served, "a-users"), {
          body: { ...other, stringData: { key: "changed" } },
        }),
      ),
    ).toBe(403);
  });

  it.each([
    [
      "get, update by name",
      (rule: PolicyRule) => rule.resources.includes("secrets") && Boolean(rule.resourceNames),
    ],
    ["create", (rule: PolicyRule) => rule.resources.includes("secrets") && !rule.resourceNames],
  ])(
    "gets a 403 issuing the webhook's certificate when the Secret rule %s is removed",
    async (_, removed) => {
      const own = await testNamespace("secret-own");
      const served = await testNamespace("secret-served");
      await applyRbac(bundle(own, served, (rule) => !removed(rule)));
      const rest = await operatorRest(own);
      expect(await statusOf(serving(rest, own))).toBe(403);
    },
  );
});
