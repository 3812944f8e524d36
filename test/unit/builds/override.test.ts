import { describe, expect, it } from "vitest";
import { parseBuildsConfig } from "../../../src/builds/config.ts";
import { applyOverride } from "../../../src/builds/override.ts";
import { deepMerge } from "../../../src/lib/merge.ts";
import { sampleConfig } from "../../support/builds/samples.ts";

const base = sampleConfig({ registry: "docker", storage: "s3", credentials: true });
const where = "ConfigMap slipway-builds in namespace team-a, config.yaml";
const override = (yaml: string, config = base) => applyOverride(config, "team-a", { "config.yaml": yaml });

describe("deepMerge", () => {
  it("merges objects key by key and replaces scalars and arrays", () => {
    expect(deepMerge({ a: { b: 1, c: [1, 2] }, d: "x" }, { a: { c: [3] }, d: "y", e: true })).toEqual({
      a: { b: 1, c: [3] },
      d: "y",
      e: true,
    });
  });
});

describe("per-namespace override of the builds configuration", () => {
  it("no ConfigMap: the operator's configuration itself", () => {
    expect(applyOverride(base, "team-a", undefined)).toEqual({ config: base, platform: base });
  });

  it("merges registry, naming and Kaniko resources over the operator's, keeping everything else", () => {
    const granted = parseBuildsConfig({
      ...base,
      tenancy: { namespaces: { "team-a": { registryOverride: true } } },
    });
    const result = override(
      "registry: {url: registry.team-a.example.com}\nnaming: {image: '{registry}/{name}:{version}'}\nkaniko: {resources: {limits: {memory: 16Gi}}}\n",
      granted,
    );
    if (!("config" in result)) throw new Error(result.error);
    expect(result.config.registry).toEqual({ ...base.registry, url: "registry.team-a.example.com" });
    expect(result.config.naming.image).toBe("{registry}/{name}:{version}");
    expect(result.config.kaniko.resources).toEqual({
      requests: { cpu: "1", memory: "2Gi" },
      limits: { memory: "16Gi" },
    });
    expect(result.config.storage).toEqual(base.storage);
    expect(result.config.kaniko.image).toBe(base.kaniko.image);
  });

  it("an empty config.yaml changes nothing", () => {
    expect(override("")).toEqual({ config: base, platform: base });
  });

  it("refuses a value the schema refuses, naming the ConfigMap and the field", () => {
    expect(override("registry: {type: quay}\n")).toEqual({
      error: expect.stringMatching(new RegExp(`^${where}: registry\\.type: `)),
    });
    expect(override("defaultTimeout: soon\n")).toEqual({
      error: expect.stringMatching(new RegExp(`^${where}: defaultTimeout: `)),
    });
  });

  it("refuses what decides where and as whom builds run", () => {
    expect(override("backend: local\n")).toEqual({
      error: `${where}: backend: cannot be overridden per namespace (allowed: registry, storage, naming, kaniko, defaultTimeout, defaultBackoffLimit)`,
    });
    expect(override("kaniko: {serviceAccount: admin}\n")).toEqual({
      error: `${where}: kaniko.serviceAccount: cannot be overridden per namespace (allowed: kaniko.resources)`,
    });
    expect(override("buildNamespace: kube-system\n")).toMatchObject({
      error: `${where}: buildNamespace: cannot be overridden per namespace (allowed: registry, storage, naming, kaniko, defaultTimeout, defaultBackoffLimit)`,
    });
  });

  it("refuses registry and storage (their credentials are the platform's) while builds run in the shared build namespace", () => {
    const shared = parseBuildsConfig({ ...base, buildNamespace: "builds" });
    const rule =
      "cannot be overridden per namespace while builds run in namespace builds (its credentials are the platform's)";
    const grant = "unless tenancy.namespaces.team-a.registryOverride allows it";
    expect(override("registry: {credentialsSecret: other-team-creds}\n", shared)).toEqual({
      error: `${where}: registry: ${rule} ${grant}`,
    });
    // a host of the namespace's choosing would receive the platform's credentials
    expect(override("registry: {url: evil.example.com}\n", shared)).toEqual({
      error: `${where}: registry: ${rule} ${grant}`,
    });
    expect(override("storage: {s3: {endpoint: http://evil.example.com}}\n", shared)).toEqual({
      error: `${where}: storage: ${rule}`,
    });
    expect(override("naming: {image: '{registry}/{name}:{version}'}\n", shared)).toHaveProperty("config");
    expect(override("registry: {credentialsSecret: team-a-creds}\n")).toMatchObject({
      config: { registry: { credentialsSecret: "team-a-creds" } },
    });
  });

  it("refuses YAML that is not a mapping, and a ConfigMap without config.yaml", () => {
    expect(override("[1, 2]\n")).toEqual({ error: `${where}: must be a mapping of configuration fields` });
    expect(override("registry: {url: [\n")).toMatchObject({
      error: expect.stringContaining(`${where}: not valid YAML`),
    });
    expect(applyOverride(base, "team-a", { other: "x" })).toEqual({
      error: "ConfigMap slipway-builds in namespace team-a has no key config.yaml",
    });
  });

  it("without a grant, a namespace keeps the platform's registry host and type, and its storage endpoints stay on allowed hosts", () => {
    const grant = "unless tenancy.namespaces.team-a.registryOverride allows it";
    expect(override("registry: {url: evil.example.com/ml}\n")).toEqual({
      error: `${where}: registry.url: host evil.example.com is not the platform's registry registry.example.com (${grant})`,
    });
    expect(override("registry: {insecure: true}\n")).toEqual({
      error: `${where}: registry.insecure: cannot be overridden per namespace ${grant}`,
    });
    expect(override("registry: {url: registry.example.com/other, credentialsSecret: mine}\n")).toMatchObject({
      config: { registry: { url: "registry.example.com/other", credentialsSecret: "mine" } },
    });
    expect(override("storage: {type: gcs, gcs: {endpoint: 'http://127.0.0.1:9/'}}\n")).toEqual({
      error: `${where}: storage.gcs.endpoint: host 127.0.0.1:9 is not allowed (tenancy.allowedHosts: minio.storage:9000, registry.example.com)`,
    });
    const allowing = parseBuildsConfig({ ...base, tenancy: { allowedHosts: ["gcs.internal:443"] } });
    expect(
      override("storage: {type: gcs, gcs: {endpoint: 'https://gcs.internal:443'}}\n", allowing),
    ).toHaveProperty("config");
  });

  it("a store the namespace chooses on the operator's ambient cloud credentials only where the installer allows them for it", () => {
    const ambient = (allowed: string[]) => ({
      allows: (namespace: string) => allowed.includes(namespace),
      setting: "SLIPWAY_AMBIENT_CREDENTIALS_NAMESPACES",
    });
    // the sample's gcs section has a key Secret: without it, the cloud's store with the operator's own credentials
    const keyless = parseBuildsConfig({ ...base, storage: { ...base.storage, gcs: {} } });
    const gcs = "storage: {type: gcs}\n";
    expect(override(gcs, keyless)).toEqual({
      error: `${where}: storage.gcs.credentialsSecret: none given for the cloud's own store, so the operator would use its ambient cloud credentials, which the installer does not allow for namespace team-a (SLIPWAY_AMBIENT_CREDENTIALS_NAMESPACES)`,
    });
    expect(
      applyOverride(keyless, "team-a", { "config.yaml": gcs }, undefined, ambient(["team-b"])),
    ).toHaveProperty("error");
    expect(
      applyOverride(keyless, "team-a", { "config.yaml": gcs }, undefined, ambient(["team-a"])),
    ).toMatchObject({ config: { storage: { type: "gcs", gcs: {} } } });
    // s3 without an endpoint is AWS's own store, signed with the ambient chain
    const gcsPlatform = parseBuildsConfig({ ...base, storage: { ...base.storage, type: "gcs", s3: {} } });
    expect(override("storage: {type: s3}\n", gcsPlatform)).toEqual({
      error: expect.stringContaining(`${where}: storage.s3.credentialsSecret: none given`),
    });
    // with its own key Secret, an emulator's endpoint, or the platform's own store restated: no ambient credentials chosen
    expect(override("storage: {type: gcs, gcs: {credentialsSecret: team-key}}\n", keyless)).toHaveProperty(
      "config",
    );
    expect(
      override("storage: {type: gcs, gcs: {endpoint: 'http://minio.storage:9000'}}\n", keyless),
    ).toHaveProperty("config");
    const platformAmbient = parseBuildsConfig({ ...base, storage: { type: "gcs", gcs: {} } });
    expect(override(gcs, platformAmbient)).toHaveProperty("config");
  });
});
