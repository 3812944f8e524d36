/**
 * The builds override admission webhook for real (issue #29 item 6): a tenant that may manage
 * ConfigMaps but has no rights on Secrets names an admin's Secret as the registry's or the store's
 * credentials in its `slipway-builds` override (the operator would mount it into the build pod,
 * where a RUN step reads /kaniko/.docker). The webhook runs on 127.0.0.1 as the operator's
 * ServiceAccount with the bundle's generated RBAC; tenants are low-privileged ServiceAccounts with
 * their own tokens.
 */
import { CoreV1Api, type KubeConfig, type V1PolicyRule } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { overrideWebhookConfiguration } from "../../../src/builds/admission/override-configuration.ts";
import { overrideAdmissionPath } from "../../../src/builds/admission/override-review.ts";
import { imageBuildController } from "../../../src/builds/controller.ts";
import { overrideConfigMapName, overrideKey } from "../../../src/builds/override.ts";
import { startOperatorWebhooks } from "../../support/admission-webhook.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";
import { grantRole, serviceAccountConfig } from "../../support/service-account.ts";

/** A ServiceAccount of `namespace` that may manage ConfigMaps (and `secretRules`, if any). */
async function tenant(namespace: string, name: string, secretRules: V1PolicyRule[] = []) {
  await adminConfig()
    .makeApiClient(CoreV1Api)
    .createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  await grantRole(namespace, name, name, [
    { apiGroups: [""], resources: ["configmaps"], verbs: ["create", "get", "patch", "update", "delete"] },
    ...secretRules,
  ]);
  return serviceAccountConfig(adminConfig(), namespace, name);
}

async function refusal(call: Promise<unknown>): Promise<string | undefined> {
  try {
    await call;
    return undefined;
  } catch (error) {
    return String((error as { body?: string }).body ?? error);
  }
}

const createAs = (user: KubeConfig, namespace: string, name: string, text: string) =>
  refusal(
    user
      .makeApiClient(CoreV1Api)
      .createNamespacedConfigMap({ namespace, body: { metadata: { name }, data: { [overrideKey]: text } } }),
  );

const patchAs = (user: KubeConfig, namespace: string, name: string, patch: object[]) =>
  refusal(user.makeApiClient(CoreV1Api).patchNamespacedConfigMap({ namespace, name, body: patch }));

async function setUp() {
  const namespace = await testNamespace("ovr-adm");
  const webhooks = await startOperatorWebhooks(
    namespace,
    [imageBuildController({ config: undefined })],
    [
      {
        name: "slipway-builds-overrides",
        path: overrideAdmissionPath,
        configuration: overrideWebhookConfiguration,
      },
    ],
  );
  const core = adminConfig().makeApiClient(CoreV1Api);
  for (const name of ["admin-registry", "team-registry"])
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name }, stringData: { ".dockerconfigjson": '{"auths":{}}' } },
    });
  const user = (name: string) => `system:serviceaccount:${namespace}:${name}`;
  return { namespace, user, ...webhooks };
}

describe("the builds override admission webhook", () => {
  it("refuses a credentials Secret the requester may not get, naming the field and the Secret; admits it with get on it", async () => {
    const { namespace, user } = await setUp();
    const plain = await tenant(namespace, "plain");
    const granted = await tenant(namespace, "granted", [
      { apiGroups: [""], resources: ["secrets"], verbs: ["get"], resourceNames: ["team-registry"] },
    ]);
    const registry = (secret: string) =>
      `registry: {url: registry.example.com/team, credentialsSecret: ${secret}}\n`;

    expect(await createAs(plain, namespace, overrideConfigMapName, registry("admin-registry"))).toContain(
      `ConfigMap ${overrideConfigMapName}, ${overrideKey}: registry.credentialsSecret: user ${user("plain")} may not get Secret ${namespace}/admin-registry`,
    );
    expect(
      await createAs(
        plain,
        namespace,
        overrideConfigMapName,
        "storage:\n  type: gcs\n  gcs:\n    credentialsSecret: admin-registry\n",
      ),
    ).toContain(`storage.gcs.credentialsSecret: user ${user("plain")} may not get Secret`);
    // the HMAC key per-build credentials are minted with: whoever has it may mint a push credential
    expect(
      await createAs(
        plain,
        namespace,
        overrideConfigMapName,
        "registry: {scopedCredentials: {secret: admin-registry, key: build-credentials-key}}\n",
      ),
    ).toContain(
      `registry.scopedCredentials.secret: user ${user("plain")} may not get Secret ${namespace}/admin-registry`,
    );
    // get on one Secret by name is not get on the others
    expect(
      await createAs(
        granted,
        namespace,
        overrideConfigMapName,
        "storage: {s3: {credentialsSecret: admin-registry}}\n",
      ),
    ).toContain(
      `storage.s3.credentialsSecret: user ${user("granted")} may not get Secret ${namespace}/admin-registry`,
    );
    expect(
      await createAs(granted, namespace, overrideConfigMapName, registry("team-registry")),
    ).toBeUndefined();

    // every change of the data is checked again, as its writer
    const data = (text: string) => [{ op: "replace", path: `/data/${overrideKey}`, value: text }];
    expect(
      await patchAs(plain, namespace, overrideConfigMapName, data(registry("admin-registry"))),
    ).toContain("registry.credentialsSecret: user");
    expect(
      await patchAs(granted, namespace, overrideConfigMapName, data(registry("admin-registry"))),
    ).toContain(`user ${user("granted")} may not get Secret ${namespace}/admin-registry`);
    // an override naming no Secret needs no right on Secrets
    expect(await patchAs(plain, namespace, overrideConfigMapName, data("naming: {}\n"))).toBeUndefined();
  });

  it("fails closed for the override's data, and no other ConfigMap write (nor a metadata change of the override) waits for it", async () => {
    const { namespace, runner } = await setUp();
    const plain = await tenant(namespace, "plain");
    expect(await createAs(plain, namespace, overrideConfigMapName, "naming: {}\n")).toBeUndefined();
    await runner.stop();
    expect(
      await createAs(plain, namespace, "other", "registry: {credentialsSecret: admin-registry}\n"),
    ).toBeUndefined();
    expect(
      await patchAs(plain, namespace, overrideConfigMapName, [
        { op: "add", path: "/metadata/labels", value: { owner: "plain" } },
      ]),
    ).toBeUndefined();
    expect(
      await patchAs(plain, namespace, overrideConfigMapName, [
        { op: "replace", path: `/data/${overrideKey}`, value: "naming: {imageTemplate: x}\n" },
      ]),
    ).toMatch(/failed calling webhook .{0,2}secret-override\.builds\.slipway\.dev.*connection refused/);
  });
});
