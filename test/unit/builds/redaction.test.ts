import { describe, expect, it } from "vitest";
import {
  dockerConfigSecrets,
  isSecretKey,
  minimumSecretLength,
  podSecretRefs,
  redactorOf,
  secretValuesOf,
} from "../../../src/builds/redaction.ts";
import { SecretReader } from "../../../src/builds/secrets.ts";
import type { Client } from "../../../src/kube/types.ts";

/** A SecretReader that has read one Secret with `data` (a stand-in for the API server's answer). */
async function readerOf(data: Record<string, string>): Promise<SecretReader> {
  const reader = new SecretReader();
  const client = { get: async () => ({ stringData: data }) } as unknown as Client;
  await reader.read(client, "ns", "s");
  return reader;
}

describe("redaction", () => {
  const token = "pip-token-5b3e8a11";

  it("catches a secret's base64 alone, inside a longer encoded text at every alignment, URL-safe, and URL-encoded", async () => {
    const reader = await readerOf({ token });
    for (const prefix of ["", "a", "ab", "user:"]) {
      for (const suffix of ["", "\n", "xyz"]) {
        const encoded = Buffer.from(`${prefix}${token}${suffix}`).toString("base64");
        expect(reader.redact(`leaked ${encoded}`)).toContain("[redacted]");
        expect(reader.redact(`leaked ${encoded}`)).not.toContain(
          Buffer.from(token).toString("base64").slice(4, 16),
        );
      }
    }
    expect(reader.redact(Buffer.from(token).toString("base64url"))).toBe("[redacted]");
    const special = await readerOf({ password: "p@ss w/rd&more" });
    expect(special.redact(`url?p=${encodeURIComponent("p@ss w/rd&more")}`)).toBe("url?p=[redacted]");
    expect(special.redact("p%40ss+w%2Frd%26more")).toBe("[redacted]");
    expect(reader.redact("nothing secret here: build failed")).toBe("nothing secret here: build failed");
  });

  it("knows the passwords inside a docker config, and the password inside its auth", async () => {
    const auth = Buffer.from("builder:reg-pass-7d1f0c9e").toString("base64");
    const config = JSON.stringify({ auths: { "registry.example.com": { auth } } });
    expect(dockerConfigSecrets(config)).toEqual([auth, "reg-pass-7d1f0c9e"]);
    const reader = await readerOf({ ".dockerconfigjson": config });
    expect(reader.redact("denied for reg-pass-7d1f0c9e")).toBe("denied for [redacted]");
  });

  it("keeps a user name readable: only the password of a username/password Secret is redacted", async () => {
    const reader = await readerOf({ username: "slipway", password: "reg-pass-41c9e0aa" });
    expect(reader.redact("built and pushed slipway-registry.slipway.svc:5000/model:v1")).toBe(
      "built and pushed slipway-registry.slipway.svc:5000/model:v1",
    );
    expect(reader.redact("login slipway:reg-pass-41c9e0aa refused")).toBe("login slipway:[redacted] refused");
  });

  it("the demo's object-store Secret: its access key id `slipway` is never redacted, its 36-hex secret key always", async () => {
    const secretKey = "0f3a9c1e7b2d4f6a8c1e3b5d7f9a0c2e4b6d";
    const reader = await readerOf({ AWS_ACCESS_KEY_ID: "slipway", AWS_SECRET_ACCESS_KEY: secretKey });
    for (const message of [
      "built and pushed slipway-registry.slipway.svc:5000/demo-model:v1",
      "Secret slipway-builds-s3 not found",
      "access to artifact s3://artifacts/demo denied: slipway: AccessDenied",
    ])
      expect(reader.redact(message)).toBe(message);
    expect(reader.redact(`signature of slipway:${secretKey} does not match`)).toBe(
      "signature of slipway:[redacted] does not match",
    );
    expect(reader.redact(`leaked ${Buffer.from(secretKey).toString("base64")}`)).toBe("leaked [redacted]");
  });

  it("redacts by structure: values of secret keys, at least 12 characters long; identifiers and settings never", () => {
    expect(minimumSecretLength).toBe(12);
    for (const key of [
      "password",
      "MINIO_ROOT_PASSWORD",
      "AWS_SECRET_ACCESS_KEY",
      "AWS_SESSION_TOKEN",
      "token",
      "client_secret",
      "private_key",
      "api-key",
      ".dockerconfigjson",
      "key.json",
      "tls.key",
    ])
      expect(isSecretKey(key), key).toBe(true);
    for (const key of [
      "AWS_ACCESS_KEY_ID",
      "username",
      "user",
      "MINIO_ROOT_USER",
      "private_key_id",
      "client_email",
      "token_name",
      "host",
      "endpoint",
      "namespace",
    ])
      expect(isSecretKey(key), key).toBe(false);
    expect(secretValuesOf({ password: "twelve-chars" })).toEqual(["twelve-chars"]);
    expect(secretValuesOf({ password: "eleven-char" })).toEqual([]);

    const privateKey =
      "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n";
    const keyFile = JSON.stringify({
      type: "service_account",
      client_email: "builder@project-1.iam.gserviceaccount.com",
      private_key_id: "4c1f0e9b2a7d3c5e8f6a1b0d9c2e7f4a3b5d6c8e",
      private_key: privateKey,
    });
    const auth = Buffer.from("slipway:reg-pass-41c9e0aa").toString("base64");
    const values = secretValuesOf({
      AWS_ACCESS_KEY_ID: "AKIAIOSFODNN7EXAMPLE",
      AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      username: "slipway-builder-account",
      password: "short-pw",
      "key.json": keyFile,
      ".dockerconfigjson": JSON.stringify({ auths: { "slipway-registry.slipway.svc:5000": { auth } } }),
      endpoint: "http://slipway-minio.slipway.svc:9000",
    });
    expect(values).toContain("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
    expect(values).toContain(privateKey);
    expect(values).toContain(auth);
    expect(values).toContain("reg-pass-41c9e0aa");
    for (const kept of [
      "AKIAIOSFODNN7EXAMPLE",
      "slipway-builder-account",
      "short-pw",
      "4c1f0e9b2a7d3c5e8f6a1b0d9c2e7f4a3b5d6c8e",
      "builder@project-1.iam.gserviceaccount.com",
      "http://slipway-minio.slipway.svc:9000",
    ])
      expect(values).not.toContain(kept);
  });

  it("a value used as a secret (a build argument's valueFrom) is redacted whatever its key, if long enough", async () => {
    const reader = await readerOf({ key: "model-key-90c1d2e3", note: "slipway" });
    expect(reader.redact("model-key-90c1d2e3 and slipway")).toBe("model-key-90c1d2e3 and slipway");
    reader.keep("model-key-90c1d2e3");
    reader.keep("slipway");
    expect(reader.redact("model-key-90c1d2e3 and slipway")).toBe("[redacted] and slipway");
  });

  it("the local builder's redactor: its secret values and their encodings, never a short one", () => {
    const redact = redactorOf(["pip-token-5b3e8a11", "s3cr3t", ""]);
    expect(redact(`pip install --index https://u:pip-token-5b3e8a11@pypi/ as s3cr3t`)).toBe(
      "pip install --index https://u:[redacted]@pypi/ as s3cr3t",
    );
    expect(redact(Buffer.from("pip-token-5b3e8a11").toString("base64"))).toBe("[redacted]");
    expect(redact("nothing secret")).toBe("nothing secret");
  });

  it("reads from a pod spec the Secrets it is given: whole ones (envFrom, volumes) and keys used as secrets (env valueFrom)", () => {
    const refs = podSecretRefs({
      initContainers: [
        { name: "fetch", envFrom: [{ secretRef: { name: "s3-creds" } }, { configMapRef: { name: "c" } }] },
      ],
      containers: [
        {
          name: "kaniko",
          env: [
            { name: "MODEL", value: "scorer" },
            { name: "MODEL_KEY", valueFrom: { secretKeyRef: { name: "model", key: "key" } } },
            { name: "AGAIN", valueFrom: { secretKeyRef: { name: "model", key: "key" } } },
            { name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
          ],
        },
      ],
      volumes: [
        { name: "registry-credentials", secret: { secretName: "registry-creds" } },
        { name: "workspace", emptyDir: {} },
      ],
    });
    expect(refs).toEqual({ whole: ["s3-creds", "registry-creds"], keys: [{ name: "model", key: "key" }] });
    expect(podSecretRefs(undefined)).toEqual({ whole: [], keys: [] });
  });
});
