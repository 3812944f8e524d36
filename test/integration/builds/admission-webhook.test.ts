/**
 * The ImageBuild admission webhook for real: the API server calls the operator's webhook over TLS on
 * 127.0.0.1 (clientConfig.url); the webhook runs as the operator's ServiceAccount with only the
 * bundle's generated RBAC, issues its serving certificate into a Secret and injects the CA into the
 * configuration; tenants are low-privileged ServiceAccounts with their own tokens.
 */
import { connect } from "node:tls";
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { imageBuildWebhookConfiguration } from "../../../src/builds/admission/configuration.ts";
import { imageBuildAdmissionPath } from "../../../src/builds/admission/review.ts";
import { imageBuildController } from "../../../src/builds/controller.ts";
import { webhookSecretName } from "../../../src/operator/webhooks.ts";
import { issueServingCertificate, splitPem } from "../../../src/webhook/certificates.ts";
import { startOperatorWebhooks } from "../../support/admission-webhook.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { grantRole, serviceAccountConfig } from "../../support/service-account.ts";

const crd = { group: ImageBuildKind.group, version: ImageBuildKind.version, plural: ImageBuildKind.plural };
const spec = (version: string, secret?: string) => ({
  project: "fraud",
  name: "scorer",
  version,
  artifactUri: "s3://artifacts/fraud/scorer",
  buildArgs: [
    { name: "MODEL_FORMAT", value: "onnx" },
    ...(secret ? [{ name: "PIP_TOKEN", valueFrom: { secretKeyRef: { name: secret, key: "token" } } }] : []),
  ],
});

/** A ServiceAccount of `namespace` that may create, read and change ImageBuilds (and get Secrets, if `readsSecrets`). */
async function tenant(namespace: string, name: string, readsSecrets: boolean): Promise<KubeConfig> {
  await adminConfig()
    .makeApiClient(CoreV1Api)
    .createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  await grantRole(namespace, name, name, [
    { apiGroups: [crd.group], resources: [crd.plural], verbs: ["create", "get", "patch", "update"] },
    ...(readsSecrets ? [{ apiGroups: [""], resources: ["secrets"], verbs: ["get"] }] : []),
  ]);
  return serviceAccountConfig(adminConfig(), namespace, name);
}

/** Creates an ImageBuild as `user`; resolves with the API server's refusal message, or undefined when admitted. */
async function createAs(user: KubeConfig, namespace: string, name: string, buildSpec: object) {
  try {
    await user.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      ...crd,
      namespace,
      body: {
        apiVersion: ImageBuildKind.apiVersion,
        kind: ImageBuildKind.kind,
        metadata: { name },
        spec: buildSpec,
      },
    });
    return undefined;
  } catch (error) {
    return String((error as { body?: string }).body ?? error);
  }
}

async function patchSpecAs(user: KubeConfig, namespace: string, name: string, version: string) {
  try {
    await user.makeApiClient(CustomObjectsApi).patchNamespacedCustomObject({
      ...crd,
      namespace,
      name,
      body: [{ op: "replace", path: "/spec/version", value: version }],
    });
    return undefined;
  } catch (error) {
    return String((error as { body?: string }).body ?? error);
  }
}

/** The certificate the server on `port` presents (PEM). */
function servedCertificate(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
      const der = socket.getPeerCertificate().raw;
      socket.end();
      resolve(
        `-----BEGIN CERTIFICATE-----\n${der
          .toString("base64")
          .match(/.{1,64}/g)
          ?.join("\n")}\n-----END CERTIFICATE-----`,
      );
    });
    socket.on("error", reject);
  });
}

async function startWebhook(namespace: string) {
  await installCrds([ImageBuildKind]);
  // the bundle's ServiceAccount and generated RBAC only (no grants): what the webhook needs is generated
  return startOperatorWebhooks(
    namespace,
    [imageBuildController({ config: undefined })],
    [
      {
        name: "slipway-imagebuilds",
        path: imageBuildAdmissionPath,
        configuration: imageBuildWebhookConfiguration,
      },
    ],
  );
}

describe("the ImageBuild admission webhook", () => {
  it("admits a Secret build argument only for a user who may get that Secret, on create and on a change of spec", async () => {
    const namespace = await testNamespace("adm");
    const { read } = await startWebhook(namespace);
    const core = adminConfig().makeApiClient(CoreV1Api);
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: "pip" }, stringData: { token: "t0k" } },
    });
    const caBundle = (await read()).webhooks?.[0]?.clientConfig?.caBundle ?? "";
    const secret = await core.readNamespacedSecret({ namespace, name: webhookSecretName });
    expect(caBundle).toBe(secret.data?.["ca.crt"]);

    const plain = await tenant(namespace, "plain", false);
    const reader = await tenant(namespace, "reader", true);
    expect(await createAs(plain, namespace, "refused", spec("v1", "pip"))).toContain(
      `spec.buildArgs[1] (PIP_TOKEN): user system:serviceaccount:${namespace}:plain may not get Secret pip in namespace ${namespace}`,
    );
    expect(await createAs(reader, namespace, "admitted", spec("v1", "pip"))).toBeUndefined();
    expect(await createAs(plain, namespace, "no-secrets", spec("v1"))).toBeUndefined();
    // the user who changes the spec must be able to read its Secrets too
    expect(await patchSpecAs(plain, namespace, "admitted", "v2")).toContain("may not get Secret pip");
    expect(await patchSpecAs(reader, namespace, "admitted", "v2")).toBeUndefined();
  });

  it("fails closed, but only builds with Secret arguments wait for it (matchConditions)", async () => {
    const namespace = await testNamespace("adm");
    const { runner } = await startWebhook(namespace);
    const reader = await tenant(namespace, "reader", true);
    await runner.stop();
    expect(await createAs(reader, namespace, "plain", spec("v1"))).toBeUndefined();
    expect(await createAs(reader, namespace, "secret", spec("v1", "pip"))).toMatch(
      /failed calling webhook .{0,2}secret-build-args\.builds\.slipway\.dev.*connection refused/,
    );
  });

  it("rotates a serving certificate that is due: the new CA is trusted next to the previous one, the new certificate served", async () => {
    const namespace = await testNamespace("adm");
    const { runner, read } = await startWebhook(namespace);
    const core = adminConfig().makeApiClient(CoreV1Api);
    // a certificate for another address is due at once
    const stale = await issueServingCertificate(["127.0.0.2"], new Date(), 90);
    const b64 = (text: string) => Buffer.from(text).toString("base64");
    const current = await core.readNamespacedSecret({ namespace, name: webhookSecretName });
    await core.replaceNamespacedSecret({
      namespace,
      name: webhookSecretName,
      body: {
        ...current,
        data: {
          "tls.crt": b64(stale.certPem),
          "tls.key": b64(stale.keyPem),
          "ca.crt": current.data?.["ca.crt"] ?? "",
        },
      },
    });
    await runner.refresh();
    const rotated = await core.readNamespacedSecret({ namespace, name: webhookSecretName });
    const certPem = Buffer.from(rotated.data?.["tls.crt"] ?? "", "base64").toString();
    expect(certPem).not.toBe(stale.certPem);
    const bundle = Buffer.from(
      (await read()).webhooks?.[0]?.clientConfig?.caBundle ?? "",
      "base64",
    ).toString();
    expect(splitPem(bundle)).toHaveLength(2);
    expect((await servedCertificate(runner.port ?? 0)).replace(/\s/g, "")).toBe(certPem.replace(/\s/g, ""));
    const reader = await tenant(namespace, "reader", true);
    expect(await createAs(reader, namespace, "after-rotation", spec("v1", "pip"))).toBeUndefined();
  });
});
