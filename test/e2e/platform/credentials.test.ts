/**
 * What a Platform owns besides its Components, on the test control plane (kwok's nodes): credential
 * Secrets generated once (never in status, Events, specs, args or logs), kept by
 * `uninstall --keep-data` and found again by the next install; the workflow engine's Provider named
 * in the status; the builds override of its namespace; each component's endpoint.
 */
import { createPrivateKey, createPublicKey, X509Certificate } from "node:crypto";
import { CoreV1Api, type KubernetesObject, type V1ConfigMap, type V1Secret } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { credentialSecrets } from "../../../src/platform/credentials.ts";
import { keptForAnnotation } from "../../../src/platform/kept-data.ts";
import { adminConfig, eventually } from "../../support/cluster.ts";
import {
  cli,
  listComponents,
  listObjects,
  type OperatorProcess,
  readPlatform,
  startOperator,
  suiteNamespace,
} from "./support.ts";

let namespace: string;
let removeNamespace: () => Promise<void>;
let operator: OperatorProcess;
const names = credentialSecrets("slipway");
const core = () => adminConfig().makeApiClient(CoreV1Api);

beforeAll(async () => {
  ({ name: namespace, remove: removeNamespace } = await suiteNamespace("cred"));
  operator = startOperator(namespace, { lean: true });
});

afterAll(async () => {
  await operator?.kill();
  await removeNamespace?.();
});

const secrets = async () =>
  (await listObjects<V1Secret>(namespace, "v1", "Secret")).filter((s) =>
    Object.values(names).includes(s.metadata?.name ?? ""),
  );
const decode = (secret: V1Secret | undefined, key: string) =>
  Buffer.from(secret?.data?.[key] ?? "", "base64").toString();
const secretNamed = async (name: string) => (await secrets()).find((s) => s.metadata?.name === name);

/** Everything that may be shown or logged: status, specs, workloads, ConfigMaps, Events, the operator's log. */
async function visibleText(): Promise<string> {
  const kinds = [
    ["apps/v1", "Deployment"],
    ["apps/v1", "StatefulSet"],
    ["v1", "ConfigMap"],
    ["events.k8s.io/v1", "Event"],
  ] as const;
  const objects = await Promise.all(
    kinds.map(([apiVersion, kind]) => listObjects(namespace, apiVersion, kind)),
  );
  return JSON.stringify([
    await readPlatform(namespace),
    await listComponents(namespace),
    objects,
    operator.output(),
  ]);
}

describe.sequential("a platform's credentials and wiring", () => {
  let passwords: Record<string, string>;

  it("generates one Secret per credential, owned by the Platform, that no status, spec, Event or log shows", {
    timeout: 300_000,
  }, async () => {
    const install = await cli(namespace, "install", "--dev", "--timeout", "4m");
    expect(install.stderr).toBe("");
    expect(install.code).toBe(0);
    const platform = await readPlatform(namespace);
    const found = await secrets();
    expect(found.map((s) => s.metadata?.name).sort()).toEqual(Object.values(names).sort());
    for (const secret of found)
      expect(secret.metadata?.ownerReferences?.[0]).toMatchObject({
        kind: "Platform",
        uid: platform.metadata.uid,
      });

    const registry = found.find((s) => s.metadata?.name === names.registry);
    expect(registry?.type).toBe("kubernetes.io/dockerconfigjson");
    const password = decode(registry, "password");
    expect(decode(registry, "username")).toBe("slipway");
    const auths = JSON.parse(decode(registry, ".dockerconfigjson")).auths;
    expect(auths[`slipway-registry.${namespace}.svc:5000`]).toMatchObject({ username: "slipway", password });
    // the registry's token issuer: its key, the certificate the registry trusts, the per-build HMAC key
    const signingKey = createPrivateKey(decode(registry, "token-signing-key"));
    const certificate = new X509Certificate(decode(registry, "token-certificate"));
    expect(certificate.publicKey.export({ type: "spki", format: "pem" })).toBe(
      createPublicKey(signingKey).export({ type: "spki", format: "pem" }),
    );
    expect(decode(registry, "build-credentials-key")).toMatch(/^[0-9a-f]{64}$/);
    expect(decode(registry, "htpasswd")).toBe("");

    passwords = {
      database: decode(await secretNamed(names.database), "password"),
      objectStore: decode(await secretNamed(names.objectStore), "AWS_SECRET_ACCESS_KEY"),
      registry: password,
      tokenSigningKey: decode(registry, "token-signing-key").split("\n")[1] ?? "",
      buildCredentialsKey: decode(registry, "build-credentials-key"),
    };
    expect(new Set(Object.values(passwords)).size).toBe(5);
    const text = await visibleText();
    for (const [name, value] of Object.entries(passwords)) {
      expect(value.length, name).toBeGreaterThanOrEqual(32);
      expect(text.includes(value), `the ${name} password is shown somewhere`).toBe(false);
    }
  });

  it("names its workflow engine's Provider and each component's endpoint; writes its namespace's builds override", async () => {
    const platform = await readPlatform(namespace);
    expect(platform.status?.provider).toBe("slipway");
    const [provider] = await listObjects<KubernetesObject & { spec?: unknown }>(
      namespace,
      "pipelines.slipway.dev/v1beta1",
      "Provider",
    );
    expect(provider?.spec).toEqual({
      type: "argo",
      serviceAccount: "slipway-pipelines",
      pipelineRootStorage: "s3://slipway",
    });
    expect(provider?.metadata?.ownerReferences?.[0]).toMatchObject({ uid: platform.metadata.uid });
    const rows = Object.fromEntries((platform.status?.components ?? []).map((c) => [c.name, c.endpoint]));
    expect(rows.mlflow).toBe(`http://slipway-mlflow.${namespace}.svc:5000`);
    expect(rows.web).toBe(`http://slipway-web.${namespace}.svc:8080`);

    const configMaps = await listObjects<V1ConfigMap>(namespace, "v1", "ConfigMap");
    const builds = configMaps.find((c) => c.metadata?.name === "slipway-builds");
    expect(builds?.data?.["config.yaml"]).toContain(`url: slipway-registry.${namespace}.svc:5000`);
    expect(builds?.data?.["config.yaml"]).toContain(`credentialsSecret: ${names.registry}`);
    // build pods push with per-build credentials minted with the HMAC key of that Secret
    expect(builds?.data?.["config.yaml"]).toMatch(
      new RegExp(`scopedCredentials:\\s+secret: ${names.registry}\\s+key: build-credentials-key`),
    );
    const argo = configMaps.find((c) => c.metadata?.name === "slipway-workflow-controller-configmap");
    expect(argo?.data?.artifactRepository).toContain(`name: ${names.objectStore}`);

    // the status shows where each service is
    const status = await cli(namespace, "status");
    expect(status.stdout).toContain(`http://slipway-mlflow.${namespace}.svc:5000`);
  });

  it("a restarted operator and a restarted platform keep every credential as it was, and bring the Platform's builds override up to date", {
    timeout: 300_000,
  }, async () => {
    const before = (await secrets()).map((s) => `${s.metadata?.name}@${s.metadata?.resourceVersion}`).sort();
    // the override as an older release wrote it: no per-build credentials, build pods pushing as the platform's user
    const override = { namespace, name: "slipway-builds" };
    const current = (await core().readNamespacedConfigMap(override)).data?.["config.yaml"] ?? "";
    const older = current.replace(/\n\s*scopedCredentials:\n(\s+(secret|key): .*\n)+/, "\n");
    expect(older).not.toContain("scopedCredentials");
    await core().patchNamespacedConfigMap({
      ...override,
      body: [{ op: "replace", path: "/data/config.yaml", value: older }],
    });
    await operator.kill();
    operator = startOperator(namespace, { lean: true });
    const restart = await cli(namespace, "restart", "--timeout", "4m");
    expect(restart.code).toBe(0);
    const after = (await secrets()).map((s) => `${s.metadata?.name}@${s.metadata?.resourceVersion}`).sort();
    expect(after).toEqual(before);
    expect((await core().readNamespacedConfigMap(override)).data?.["config.yaml"]).toBe(current);
  });

  it("uninstall --keep-data keeps the Secrets with the claims; the next install uses them", {
    timeout: 300_000,
  }, async () => {
    const uninstall = await cli(
      namespace,
      "uninstall",
      "--yes",
      "--keep-crds",
      "--keep-data",
      "--timeout",
      "3m",
    );
    expect(uninstall.stderr).toBe("");
    expect(uninstall.code).toBe(0);
    expect(uninstall.stdout).toContain("kept 4 volume claim(s) and their data, 3 credential Secret(s)");
    const kept = await secrets();
    expect(kept).toHaveLength(3);
    expect(kept.every((s) => !s.metadata?.deletionTimestamp && !s.metadata?.ownerReferences?.length)).toBe(
      true,
    );
    expect(kept.map((s) => s.metadata?.annotations?.[keptForAnnotation])).toEqual([
      "slipway",
      "slipway",
      "slipway",
    ]);

    // as a registry Secret made before token authentication: an htpasswd line, none of the issuer's keys
    await core().patchNamespacedSecret({
      namespace,
      name: names.registry,
      body: [
        { op: "remove", path: "/data/token-signing-key" },
        { op: "remove", path: "/data/token-certificate" },
        { op: "remove", path: "/data/build-credentials-key" },
        { op: "add", path: "/data/htpasswd", value: Buffer.from("slipway:$2y$10$old\n").toString("base64") },
      ],
    });

    const install = await cli(namespace, "install", "--dev", "--timeout", "4m");
    expect(install.code).toBe(0);
    expect(decode(await secretNamed(names.database), "password")).toBe(passwords.database);
    const registry = await secretNamed(names.registry);
    expect(decode(registry, "password")).toBe(passwords.registry);
    // what it lacked is added, what it had is kept
    expect(decode(registry, "htpasswd")).toBe("slipway:$2y$10$old\n");
    expect(decode(registry, "build-credentials-key")).toMatch(/^[0-9a-f]{64}$/);
    expect(decode(registry, "build-credentials-key")).not.toBe(passwords.buildCredentialsKey);
    expect(createPrivateKey(decode(registry, "token-signing-key")).asymmetricKeyType).toBe("ec");
    expect(decode(registry, "token-certificate")).toMatch(/^-----BEGIN CERTIFICATE-----/);
    // owned again by the new Platform: the next uninstall (without --keep-data) removes them with it
    const platform = await readPlatform(namespace);
    for (const secret of await secrets())
      expect(secret.metadata?.ownerReferences?.[0], secret.metadata?.name).toMatchObject({
        kind: "Platform",
        uid: platform.metadata.uid,
      });
  });

  it("a Secret of a credential's name that is neither the Platform's nor kept for it fails the Platform naming it, and is used once marked", {
    timeout: 300_000,
  }, async () => {
    const uninstall = await cli(namespace, "uninstall", "--yes", "--keep-crds", "--timeout", "3m");
    expect(uninstall.code, uninstall.stderr).toBe(0);
    expect(await secrets()).toEqual([]);
    // someone who may create Secrets here, not Platforms, makes the database's ahead of the install
    await core().createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: names.database },
        stringData: { username: "slipway", password: "a-password-somebody-else-knows" },
      },
    });

    const install = await cli(namespace, "install", "--dev", "--timeout", "2m");
    expect(install.code).toBe(1);
    expect(install.stderr).toContain(
      `platform slipway failed: Secret ${names.database} already exists and is not this platform's credential: Platform slipway did not make it and uninstall --keep-data did not keep it for it`,
    );
    const platform = await readPlatform(namespace);
    expect(platform.status).toMatchObject({ phase: "Failed" });
    expect(platform.status?.conditions).toContainEqual(
      expect.objectContaining({ type: "Ready", reason: "CredentialNotOwned" }),
    );
    // nothing runs on it: no Component was made, the Secret is as it was
    expect(await listComponents(namespace)).toEqual([]);
    const foreign = await secretNamed(names.database);
    expect(foreign?.metadata?.ownerReferences).toBeUndefined();
    expect(decode(foreign, "password")).toBe("a-password-somebody-else-knows");

    // marked as kept for this Platform, it is taken (the operator looks again within 30 s)
    await core().patchNamespacedSecret({
      namespace,
      name: names.database,
      body: [{ op: "add", path: "/metadata/annotations", value: { [keptForAnnotation]: "slipway" } }],
    });
    await eventually(
      "the platform Running on the Secret kept for it",
      () => readPlatform(namespace),
      (p) => p.status?.phase === "Running",
      240_000,
    );
    const taken = await secretNamed(names.database);
    expect(taken?.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: "Platform",
      uid: (await readPlatform(namespace)).metadata.uid,
    });
    expect(decode(taken, "password")).toBe("a-password-somebody-else-knows");
  });
});
