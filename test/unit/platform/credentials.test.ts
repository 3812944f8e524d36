import { createPrivateKey, createPublicKey, sign, verify, X509Certificate } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  credentialSecret,
  generateCredential,
  missingCredentialData,
} from "../../../src/platform/credentials.ts";
import { defaultCredentialTools } from "../../../src/platform/platform-resources.ts";
import { workflowEngineRbac } from "../../../src/platform/workflow-engine.ts";

const platform = {
  apiVersion: "platform.slipway.dev/v1beta1",
  kind: "Platform",
  metadata: { name: "lab", namespace: "team", uid: "p-1" },
  spec: {},
} as never;
let signers = 0;
const fixed = {
  password: () => "p4ss",
  tokenSigner: async () => ({ keyPem: `key-${++signers}`, certPem: `cert-${signers}` }),
};
const decoded = (data: Record<string, string> | undefined, key: string) =>
  Buffer.from(data?.[key] ?? "", "base64").toString();

describe("credentials", () => {
  it("the registry's: a dockerconfigjson for its in-cluster address, and its token issuer's key, certificate and HMAC key; no htpasswd", async () => {
    const secret = credentialSecret(
      platform,
      "registry",
      await generateCredential("registry", "lab", "team", fixed),
    );
    expect(secret.type).toBe("kubernetes.io/dockerconfigjson");
    expect(secret.metadata).toMatchObject({ name: "lab-registry-credentials", namespace: "team" });
    expect(secret.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "Platform", uid: "p-1" });
    expect(secret.metadata?.labels?.["app.kubernetes.io/part-of"]).toBe("slipway");
    const config = JSON.parse(decoded(secret.data, ".dockerconfigjson"));
    expect(config.auths["lab-registry.team.svc:5000"]).toEqual({
      username: "slipway",
      password: "p4ss",
      auth: Buffer.from("slipway:p4ss").toString("base64"),
    });
    expect(Object.keys(secret.data ?? {}).sort()).toEqual([
      ".dockerconfigjson",
      "build-credentials-key",
      "password",
      "token-certificate",
      "token-signing-key",
      "username",
    ]);
    expect(decoded(secret.data, "token-signing-key")).toMatch(/^key-\d+$/);
    expect(decoded(secret.data, "token-certificate")).toBe(
      decoded(secret.data, "token-signing-key").replace("key", "cert"),
    );
    expect(decoded(secret.data, "build-credentials-key")).toBe("p4ssp4ss");
  });

  it("what an existing registry Secret lacks is generated, what it has is kept; the key and its certificate go together", async () => {
    const complete = { "token-signing-key": "k", "token-certificate": "c", "build-credentials-key": "h" };
    expect(await missingCredentialData("registry", complete, fixed)).toEqual({});
    // a Secret from before token authentication: htpasswd and a password, nothing of the issuer
    const old = { htpasswd: "x", password: "y", ".dockerconfigjson": "z" };
    const added = await missingCredentialData("registry", old, fixed);
    expect(Object.keys(added).sort()).toEqual([
      "build-credentials-key",
      "token-certificate",
      "token-signing-key",
    ]);
    const onlyCertificate = await missingCredentialData(
      "registry",
      { ...complete, "token-signing-key": "" },
      fixed,
    );
    expect(Object.keys(onlyCertificate).sort()).toEqual(["token-certificate", "token-signing-key"]);
    expect(
      await missingCredentialData("registry", { ...complete, "build-credentials-key": "" }, fixed),
    ).toEqual({
      "build-credentials-key": "p4ssp4ss",
    });
    expect(await missingCredentialData("database", {}, fixed)).toEqual({});
  });

  it("the database's and the object store's carry the keys their consumers reference", async () => {
    const database = credentialSecret(
      platform,
      "database",
      await generateCredential("database", "lab", "team", fixed),
    );
    expect(Object.keys(database.data ?? {}).sort()).toEqual(["password", "username"]);
    const store = credentialSecret(
      platform,
      "objectStore",
      await generateCredential("objectStore", "lab", "team", fixed),
    );
    expect(decoded(store.data, "AWS_SECRET_ACCESS_KEY")).toBe("p4ss");
    expect(store.metadata?.name).toBe("lab-object-store-credentials");
  });

  it("real tools: distinct 128-bit passwords; a P-256 signing key whose self-signed certificate holds its public key for years", async () => {
    const a = defaultCredentialTools.password();
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(defaultCredentialTools.password()).not.toBe(a);
    const signer = await defaultCredentialTools.tokenSigner();
    const key = createPrivateKey(signer.keyPem);
    expect(key.asymmetricKeyDetails?.namedCurve).toBe("prime256v1");
    const certificate = new X509Certificate(signer.certPem);
    // self-signed: its own issuer, signed by its own key
    expect(certificate.issuer).toBe(certificate.subject);
    expect(certificate.verify(certificate.publicKey)).toBe(true);
    expect(certificate.publicKey.export({ format: "pem", type: "spki" })).toBe(
      createPublicKey(key).export({ format: "pem", type: "spki" }),
    );
    const years = (Date.parse(certificate.validTo) - Date.now()) / (365 * 86_400_000);
    expect(years).toBeGreaterThan(9);
    const signature = sign("sha256", Buffer.from("x"), key);
    expect(verify("sha256", Buffer.from("x"), certificate.publicKey, signature)).toBe(true);
    expect((await defaultCredentialTools.tokenSigner()).keyPem).not.toBe(signer.keyPem);
  });
});

describe("the workflow engine's RBAC", () => {
  it("Roles only (never cluster-wide), bound to the controller's and the pipelines' ServiceAccounts", () => {
    const objects = workflowEngineRbac("lab");
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      "Role/lab-workflow-engine",
      "RoleBinding/lab-workflow-engine",
      "ServiceAccount/lab-pipelines",
      "Role/lab-pipelines",
      "RoleBinding/lab-pipelines",
    ]);
    const binding = objects[1] as unknown as { subjects: unknown[]; roleRef: unknown };
    expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: "lab-workflow-engine" }]);
    expect(binding.roleRef).toMatchObject({ kind: "Role", name: "lab-workflow-engine" });
  });
});
