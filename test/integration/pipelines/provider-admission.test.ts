/**
 * The Provider admission webhook for real (issue #29 item 1): a tenant with no rights on Secrets
 * names an admin's Secret in a kfp Provider whose endpoint is its own listener on 127.0.0.1. The
 * webhook runs on 127.0.0.1 as the operator's ServiceAccount with the bundle's generated RBAC, the
 * Provider controller as the same account; tenants are low-privileged ServiceAccounts with their
 * own tokens.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1PolicyRule } from "@kubernetes/client-node";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { ProviderKind } from "../../../src/apis/pipelines/provider.ts";
import { providerWebhookConfiguration } from "../../../src/pipelines/admission/configuration.ts";
import { providerAdmissionPath } from "../../../src/pipelines/admission/review.ts";
import { backendsFor } from "../../../src/pipelines/backends.ts";
import { providerController } from "../../../src/pipelines/controllers/provider.ts";
import { outboundPolicy } from "../../../src/pipelines/outbound-policy.ts";
import { startOperatorWebhooks } from "../../support/admission-webhook.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { startOperatorAs } from "../../support/operator-rbac.ts";
import { grantRole, serviceAccountConfig } from "../../support/service-account.ts";

const crd = { group: ProviderKind.group, version: ProviderKind.version, plural: ProviderKind.plural };
const adminToken = "admin-secret-value-5b0c2e7d9a";
const teamToken = "team-kfp-token-81f4a6c3e2";
// the tenant's listener is on 127.0.0.1: the operator's outbound policy allows it, so that what is
// refused here is the Secret, not the address
const backends = backendsFor(outboundPolicy({ allow: ["127.0.0.1"] }));
const controllers = () => [providerController({ backends })];

/** A ServiceAccount of `namespace` that may manage Providers (and `secretRules`, if any). */
async function tenant(
  namespace: string,
  name: string,
  secretRules: V1PolicyRule[] = [],
): Promise<KubeConfig> {
  await adminConfig()
    .makeApiClient(CoreV1Api)
    .createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  await grantRole(namespace, name, name, [
    { apiGroups: [crd.group], resources: [crd.plural], verbs: ["create", "get", "list", "patch", "update"] },
    ...secretRules,
  ]);
  return serviceAccountConfig(adminConfig(), namespace, name);
}

/** Resolves with the API server's refusal message, or undefined when admitted. */
async function refusal(call: Promise<unknown>): Promise<string | undefined> {
  try {
    await call;
    return undefined;
  } catch (error) {
    return String((error as { body?: string }).body ?? error);
  }
}

const createAs = (user: KubeConfig, namespace: string, name: string, spec: object) =>
  refusal(
    user.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      ...crd,
      namespace,
      body: { apiVersion: ProviderKind.apiVersion, kind: ProviderKind.kind, metadata: { name }, spec },
    }),
  );

const patchAs = (user: KubeConfig, namespace: string, name: string, patch: object[]) =>
  refusal(
    user
      .makeApiClient(CustomObjectsApi)
      .patchNamespacedCustomObject({ ...crd, namespace, name, body: patch }),
  );

const kfp = (endpoint: string, secret: string) => ({
  type: "kfp",
  parameters: { endpoint, auth: { bearerTokenSecret: { name: secret } } },
});

/** A listener on 127.0.0.1 that records the Authorization header of every request. */
async function listener() {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers.authorization ?? "");
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

async function setUp(prefix: string) {
  const namespace = await testNamespace(prefix);
  const webhooks = await startOperatorWebhooks(namespace, controllers(), [
    { name: "slipway-providers", path: providerAdmissionPath, configuration: providerWebhookConfiguration },
  ]);
  const core = adminConfig().makeApiClient(CoreV1Api);
  for (const [name, token] of [
    ["admin-token", adminToken],
    ["team-kfp", teamToken],
  ] as const)
    await core.createNamespacedSecret({ namespace, body: { metadata: { name }, stringData: { token } } });
  return { namespace, ...webhooks };
}

describe("the Provider admission webhook", () => {
  beforeAll(() => installCrds([ProviderKind]));

  it("refuses a Secret the requester may not get (kfp, vertex): the operator never sends it; admits it with get on that Secret", async () => {
    const { namespace } = await setUp("pvd-adm");
    await startOperatorAs(namespace, controllers());
    const sink = await listener();
    const plain = await tenant(namespace, "plain");
    const granted = await tenant(namespace, "granted", [
      { apiGroups: [""], resources: ["secrets"], verbs: ["get"], resourceNames: ["team-kfp"] },
    ]);
    const user = (name: string) => `system:serviceaccount:${namespace}:${name}`;

    expect(await createAs(plain, namespace, "steal", kfp(sink.url, "admin-token"))).toContain(
      `spec.parameters.auth.bearerTokenSecret.name: user ${user("plain")} may not get Secret ${namespace}/admin-token`,
    );
    expect(
      await createAs(plain, namespace, "steal-key", {
        type: "vertex",
        parameters: {
          project: "team-project",
          location: "europe-west4",
          apiEndpoint: "127.0.0.1:1",
          credentials: { keySecret: { name: "admin-token", key: "token" } },
        },
      }),
    ).toContain(`spec.parameters.credentials.keySecret.name: user ${user("plain")} may not get Secret`);
    // get on one Secret by name is not get on the others
    expect(await createAs(granted, namespace, "steal-2", kfp(sink.url, "admin-token"))).toContain(
      `user ${user("granted")} may not get Secret ${namespace}/admin-token`,
    );
    expect(await createAs(plain, namespace, "argo", { type: "argo" })).toBeUndefined();
    expect(await createAs(granted, namespace, "team", kfp(sink.url, "team-kfp"))).toBeUndefined();

    // the admitted Provider's readiness call reaches the listener: the refused ones would have too
    await eventually(
      "the operator's call with the team's token",
      async () => sink.seen,
      (seen) => seen.includes(`Bearer ${teamToken}`),
      30_000,
    );
    expect(sink.seen.filter((header) => header.includes(adminToken))).toEqual([]);
  });

  it("checks every change of spec (the endpoint decides where the token goes), never a metadata change", async () => {
    const { namespace } = await setUp("pvd-adm");
    const plain = await tenant(namespace, "plain");
    const granted = await tenant(namespace, "granted", [
      { apiGroups: [""], resources: ["secrets"], verbs: ["get"], resourceNames: ["team-kfp"] },
    ]);
    expect(
      await createAs(granted, namespace, "team", kfp("http://kfp.example:8888", "team-kfp")),
    ).toBeUndefined();
    const endpoint = [{ op: "replace", path: "/spec/parameters/endpoint", value: "http://127.0.0.1:9" }];
    expect(await patchAs(plain, namespace, "team", endpoint)).toContain(
      "spec.parameters.auth.bearerTokenSecret.name: user",
    );
    expect(
      await patchAs(plain, namespace, "team", [
        { op: "add", path: "/metadata/labels", value: { owner: "plain" } },
      ]),
    ).toBeUndefined();
    expect(await patchAs(granted, namespace, "team", endpoint)).toBeUndefined();
  });

  it("fails closed, but only Providers that name a Secret wait for it (matchConditions)", async () => {
    const { namespace, runner } = await setUp("pvd-adm");
    const granted = await tenant(namespace, "granted", [
      { apiGroups: [""], resources: ["secrets"], verbs: ["get"] },
    ]);
    await runner.stop();
    expect(await createAs(granted, namespace, "argo", { type: "argo" })).toBeUndefined();
    expect(
      await createAs(granted, namespace, "kfp-none", {
        type: "kfp",
        parameters: { endpoint: "http://kfp.example" },
      }),
    ).toBeUndefined();
    expect(await createAs(granted, namespace, "kfp", kfp("http://kfp.example", "team-kfp"))).toMatch(
      /failed calling webhook .{0,2}secret-parameters\.pipelines\.slipway\.dev.*connection refused/,
    );
  });
});
