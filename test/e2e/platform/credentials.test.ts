/**
 * What a Platform owns besides its Components, on the test control plane (kwok's nodes): credential
 * Secrets generated once (never in status, Events, specs, args or logs), kept by
 * `uninstall --keep-data` and found again by the next install; the workflow engine's Provider named
 * in the status; the builds override of its namespace; each component's endpoint.
 */
import type { KubernetesObject, V1ConfigMap, V1Secret } from "@kubernetes/client-node";
import bcrypt from "bcryptjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { credentialSecrets } from "../../../src/platform/credentials.ts";
import { keptForAnnotation } from "../../../src/platform/kept-data.ts";
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
    const [user, hash] = decode(registry, "htpasswd").trim().split(":");
    expect(user).toBe("slipway");
    expect(bcrypt.compareSync(password, hash ?? "")).toBe(true);
    const auths = JSON.parse(decode(registry, ".dockerconfigjson")).auths;
    expect(auths[`slipway-registry.${namespace}.svc:5000`]).toMatchObject({ username: "slipway", password });

    passwords = {
      database: decode(await secretNamed(names.database), "password"),
      objectStore: decode(await secretNamed(names.objectStore), "AWS_SECRET_ACCESS_KEY"),
      registry: password,
    };
    expect(new Set(Object.values(passwords)).size).toBe(3);
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
      "pipelines.slipway.dev/v1alpha1",
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
    const argo = configMaps.find((c) => c.metadata?.name === "slipway-workflow-controller-configmap");
    expect(argo?.data?.artifactRepository).toContain(`name: ${names.objectStore}`);

    // the status shows where each service is
    const status = await cli(namespace, "status");
    expect(status.stdout).toContain(`http://slipway-mlflow.${namespace}.svc:5000`);
  });

  it("a restarted operator and a restarted platform keep every credential as it was", {
    timeout: 300_000,
  }, async () => {
    const before = (await secrets()).map((s) => `${s.metadata?.name}@${s.metadata?.resourceVersion}`).sort();
    await operator.kill();
    operator = startOperator(namespace, { lean: true });
    const restart = await cli(namespace, "restart", "--timeout", "4m");
    expect(restart.code).toBe(0);
    const after = (await secrets()).map((s) => `${s.metadata?.name}@${s.metadata?.resourceVersion}`).sort();
    expect(after).toEqual(before);
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

    const install = await cli(namespace, "install", "--dev", "--timeout", "4m");
    expect(install.code).toBe(0);
    expect(decode(await secretNamed(names.database), "password")).toBe(passwords.database);
    expect(decode(await secretNamed(names.registry), "password")).toBe(passwords.registry);
    // owned again by the new Platform: the next uninstall (without --keep-data) removes them with it
    const platform = await readPlatform(namespace);
    for (const secret of await secrets())
      expect(secret.metadata?.ownerReferences?.[0], secret.metadata?.name).toMatchObject({
        kind: "Platform",
        uid: platform.metadata.uid,
      });
  });
});
