import type { V1ConfigMap } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { parseBuildsConfig } from "../../../src/builds/config.ts";
import { applyOverride, overrideKey } from "../../../src/builds/override.ts";
import { allowedHosts, repositoryRule } from "../../../src/builds/tenancy.ts";
import { platformBuildsOverride, platformVouchedHosts } from "../../../src/platform/builds-wiring.ts";

// the operator's own configuration: no tenancy grant for the platform's namespace
const base = parseBuildsConfig({
  registry: { url: "registry.example.com/ml" },
  storage: { type: "s3", s3: { endpoint: "https://s3.example.com" } },
});
const platform = {
  apiVersion: "platform.slipway.dev/v1beta1",
  kind: "Platform",
  metadata: { name: "lab", namespace: "team", uid: "p-1" },
  spec: {},
} as never;
const platformOverride = platformBuildsOverride(platform);
const forge = (uid: string): V1ConfigMap => ({
  ...platformOverride,
  metadata: {
    ...platformOverride.metadata,
    ownerReferences: [{ ...platformOverride.metadata?.ownerReferences?.[0], uid } as never],
  },
});
const judge = (configMap: V1ConfigMap, data = configMap.data) =>
  applyOverride(base, "team", data, platformVouchedHosts(configMap, platform));

describe("an override ConfigMap controlled by a Platform", () => {
  it("without a vouching owner the tenancy rules refuse the platform's registry host", () => {
    expect(applyOverride(base, "team", platformOverride.data)).toEqual({
      error: expect.stringContaining(
        "registry.type: cannot be overridden per namespace unless tenancy.namespaces.team.registryOverride allows it",
      ),
    });
  });

  it("is accepted from the Platform that controls it: its registry, its token issuer and object store, no grant needed", () => {
    expect(platformVouchedHosts(platformOverride, platform)).toEqual({
      registryHost: "lab-registry.team.svc:5000",
      storageHosts: ["lab-object-store.team.svc:9000"],
      tokenRealmHosts: ["lab-api-server.team.svc:8080"],
    });
    const result = judge(platformOverride);
    if ("error" in result) throw new Error(result.error);
    expect(result.config.registry.url).toBe("lab-registry.team.svc:5000");
    // build pods push with credentials of their own; the registry client may follow its realm
    expect(result.config.registry.scopedCredentials).toEqual({
      secret: "lab-registry-credentials",
      key: "build-credentials-key",
    });
    expect(allowedHosts(result.config)).toContain("lab-api-server.team.svc:8080");
    // the realm is trusted only for the vouched registry: an override pointing elsewhere does not get it
    const elsewhere = judge(platformOverride, {
      [overrideKey]: "registry: {url: registry.example.com/ml/team}\n",
    });
    if ("error" in elsewhere) throw new Error(elsewhere.error);
    expect(allowedHosts(elsewhere.config)).not.toContain("lab-api-server.team.svc:8080");
    expect(result.config.storage?.s3.endpoint).toBe("http://lab-object-store.team.svc:9000");
    // images go to the platform's registry, under the namespace's prefix
    expect(repositoryRule(result.platform, result.config, "team")).toEqual({
      namespace: "team",
      host: "lab-registry.team.svc:5000",
      repositoryPrefix: "team/",
    });
  });

  it("a forged reference (another uid, or no Platform at all) vouches for nothing and is refused", () => {
    expect(platformVouchedHosts(forge("p-forged"), platform)).toEqual({
      untrusted: "its controller reference names Platform lab with uid p-forged, not that Platform's",
    });
    expect(platformVouchedHosts(platformOverride, undefined)).toEqual({
      untrusted: "its controller reference names Platform lab, which does not exist in namespace team",
    });
    // the refusal is the ordinary rule's, and says why the owner did not lift it
    expect(judge(forge("p-forged"))).toEqual({
      error: expect.stringMatching(
        /registry\.type: cannot be overridden per namespace .* \(not vouched for: its controller reference names Platform lab with uid p-forged, not that Platform's\)$/,
      ),
    });
    const notController: V1ConfigMap = {
      ...platformOverride,
      metadata: {
        ...platformOverride.metadata,
        ownerReferences: [{ ...platformOverride.metadata?.ownerReferences?.[0], controller: false } as never],
      },
    };
    expect(platformVouchedHosts(notController, platform)).toBeUndefined();
  });

  it("the Platform vouches only for its own hosts: an edited override pointing elsewhere is refused", () => {
    const elsewhere = (yaml: string) => judge(platformOverride, { "config.yaml": yaml });
    expect(elsewhere("registry: {url: evil.example.com, insecure: true}\n")).toEqual({
      error: expect.stringContaining("registry.insecure: cannot be overridden per namespace"),
    });
    expect(elsewhere("storage: {type: s3, s3: {endpoint: 'http://evil.example.com'}}\n")).toEqual({
      error: expect.stringContaining("storage.s3.endpoint: host evil.example.com is not allowed"),
    });
  });
});
