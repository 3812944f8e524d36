/** The api-server's --trust-proxy as the Platform and the operator's cluster networks decide it. */
import { describe, expect, it } from "vitest";
import type { PlatformResource } from "../../../src/apis/platform/platform.ts";
import { parseTrustProxy } from "../../../src/cli/server.ts";
import { findRelease } from "../../../src/platform/catalog.ts";
import { type RenderOptions, renderComponents } from "../../../src/platform/render.ts";

const release = findRelease("0.2.0");
if (!release) throw new Error("release 0.2.0 missing");
type Spec = NonNullable<PlatformResource["spec"]>;

/** The value of --trust-proxy in the component's args, or undefined without the flag. */
function trustProxy(spec: Spec, component = "api-server", options: RenderOptions = {}) {
  const rendered = renderComponents("slipway", "ns", spec, release as NonNullable<typeof release>, options);
  const args = rendered.find((c) => c.name === component)?.spec.args ?? [];
  const at = args.indexOf("--trust-proxy");
  return at < 0 ? undefined : args[at + 1];
}

describe("the api-server's trusted proxies", () => {
  it("default: the private ranges, where an in-cluster ingress controller's pods are", () => {
    expect(trustProxy({})).toBe("10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7");
  });

  it("the cluster's networks the installer gave the operator replace the private ranges", () => {
    const clusterNetworks = ["10.244.0.0/16", "10.96.0.0/12"];
    expect(trustProxy({}, "api-server", { clusterNetworks })).toBe("10.244.0.0/16,10.96.0.0/12");
  });

  it("spec.ingress.trustedProxies wins; [] trusts none (no flag)", () => {
    const spec = { ingress: { trustedProxies: ["10.42.0.0/16", "192.0.2.10"] } };
    expect(trustProxy(spec, "api-server", { clusterNetworks: ["10.244.0.0/16"] })).toBe(
      "10.42.0.0/16,192.0.2.10",
    );
    expect(trustProxy({ ingress: { trustedProxies: [] } })).toBeUndefined();
  });

  it("the longest list the CRD admits fits the Component's bound on one argument", () => {
    const longest = Array.from(
      { length: 16 },
      (_, i) => `ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.${i}/128`,
    );
    expect(longest.every((entry) => entry.length <= 50)).toBe(true);
    expect(trustProxy({ ingress: { trustedProxies: longest } })?.length).toBeLessThanOrEqual(1024);
  });

  it("without the Ingress nothing is trusted unless named; web never gets the flag", () => {
    expect(trustProxy({ ingress: { enabled: false } })).toBeUndefined();
    expect(trustProxy({ ingress: { enabled: false, trustedProxies: ["192.0.2.10"] } })).toBe("192.0.2.10");
    expect(trustProxy({}, "web")).toBeUndefined();
  });

  it("slipway server --trust-proxy reads what is rendered and refuses what is not an address or a CIDR", () => {
    expect(parseTrustProxy(trustProxy({}) ?? "")).toEqual([
      "10.0.0.0/8",
      "172.16.0.0/12",
      "192.168.0.0/16",
      "fc00::/7",
    ]);
    for (const bad of ["10.0.0.0/33", "ingress", "10.0.0.1/8/1", "fc00::/129"])
      expect(() => parseTrustProxy(`10.0.0.0/8,${bad}`)).toThrow(
        `--trust-proxy: "${bad}" is not an IP address or a CIDR`,
      );
  });
});
