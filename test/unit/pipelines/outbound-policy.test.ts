import { describe, expect, it } from "vitest";
import { checkedAddress } from "../../../src/pipelines/outbound-lookup.ts";
import {
  ambientAllowed,
  checkedUrl,
  hostVerdict,
  outboundPolicy,
  outboundPolicyFromEnvironment,
  refusedAddress,
} from "../../../src/pipelines/outbound-policy.ts";
import { loopbackResolver } from "../../support/loopback-resolver.ts";

const field = "spec.parameters.endpoint";
const rule = "not allowed by the operator's outbound policy (SLIPWAY_OUTBOUND_ALLOW)";
const strict = outboundPolicy({ deny: ["10.244.0.0/16", "192.168.10.0/24"] });

describe("the outbound policy", () => {
  it.each([
    ["http://127.0.0.1:9000", `${field}: 127.0.0.1 is loopback, ${rule}`],
    ["http://127.8.9.10", `${field}: 127.8.9.10 is loopback, ${rule}`],
    ["http://0x7f.1:9000", `${field}: 127.0.0.1 is loopback, ${rule}`],
    ["http://2130706433/", `${field}: 127.0.0.1 is loopback, ${rule}`],
    ["http://[::1]:8888", `${field}: ::1 is loopback, ${rule}`],
    ["http://[::ffff:127.0.0.1]:8888", `${field}: ::ffff:7f00:1 is loopback, ${rule}`],
    ["http://localhost:8888", `${field}: localhost is loopback, ${rule}`],
    ["http://kfp.localhost", `${field}: kfp.localhost is loopback, ${rule}`],
    ["http://169.254.169.254/", `${field}: 169.254.169.254 is link-local (cloud metadata), ${rule}`],
    ["http://[fe80::1]/", `${field}: fe80::1 is link-local, ${rule}`],
    ["http://0.0.0.0:80", `${field}: 0.0.0.0 is unspecified, ${rule}`],
    [
      "http://10.244.3.7:80",
      `${field}: 10.244.3.7 is in the cluster's networks (SLIPWAY_OUTBOUND_DENY), ${rule}`,
    ],
    ["http://kfp.example.com#/apis", `${field}: no fragment (#) in the URL`],
    ["http://kfp.example.com/#", `${field}: no fragment (#) in the URL`],
    ["http://user:pw@kfp.example.com", `${field}: no credentials (userinfo) in the URL`],
    ["ftp://kfp.example.com", `${field}: the scheme must be http or https, not ftp:`],
    ["kfp", `${field}: not a URL`],
  ])("refuses %s naming the field and the rule", (url, message) => {
    expect(() => checkedUrl(strict, field, url)).toThrow(message);
  });

  it("lets through public addresses, names (checked once resolved) and what the installer listed", () => {
    expect(checkedUrl(strict, field, "https://kfp.example.com:443/").hostname).toBe("kfp.example.com");
    expect(hostVerdict(strict, "kfp.example.com")).toEqual({ resolve: true });
    expect(hostVerdict(strict, "10.96.0.10")).toEqual({ resolve: true }); // the service network is not refused
    const allowing = outboundPolicy({
      allow: ["127.0.0.1", "10.244.3.0/24", "kfp.internal"],
      deny: ["10.244.0.0/16"],
    });
    expect(checkedUrl(allowing, field, "http://127.0.0.1:9000").port).toBe("9000");
    expect(hostVerdict(allowing, "127.0.0.1")).toEqual({ listed: true });
    expect(hostVerdict(allowing, "127.0.0.2")).toEqual({ refused: "loopback" });
    expect(refusedAddress(allowing, "10.244.3.7")).toBeUndefined();
    expect(refusedAddress(allowing, "10.244.4.7")).toBe("in the cluster's networks (SLIPWAY_OUTBOUND_DENY)");
    expect(hostVerdict(allowing, "KFP.internal")).toEqual({ listed: true });
  });

  it("ambient credentials only in the namespaces listed (default none)", () => {
    expect(ambientAllowed(outboundPolicy(), "ml")).toBe(false);
    expect(ambientAllowed(outboundPolicy({ ambientCredentialsNamespaces: ["ml"] }), "ml")).toBe(true);
    expect(ambientAllowed(outboundPolicy({ ambientCredentialsNamespaces: ["ml"] }), "team")).toBe(false);
    expect(ambientAllowed(outboundPolicy({ ambientCredentialsNamespaces: ["*"] }), "team")).toBe(true);
  });

  it("reads the environment, refusing a bad entry naming the variable", () => {
    const policy = outboundPolicyFromEnvironment({
      SLIPWAY_OUTBOUND_ALLOW: "127.0.0.1, kfp.internal,10.0.0.0/8",
      SLIPWAY_OUTBOUND_DENY: "10.244.0.0/16",
      SLIPWAY_AMBIENT_CREDENTIALS_NAMESPACES: "ml",
    });
    expect(hostVerdict(policy, "127.0.0.1")).toEqual({ listed: true });
    expect(ambientAllowed(policy, "ml")).toBe(true);
    expect(() => outboundPolicyFromEnvironment({ SLIPWAY_OUTBOUND_ALLOW: "http://x" })).toThrow(
      'SLIPWAY_OUTBOUND_ALLOW: "http://x" is not a host or a CIDR',
    );
    expect(() => outboundPolicyFromEnvironment({ SLIPWAY_OUTBOUND_DENY: "10.0.0.0/33" })).toThrow(
      'SLIPWAY_OUTBOUND_DENY: "10.0.0.0/33" is not a CIDR',
    );
    expect(() =>
      outboundPolicyFromEnvironment({ SLIPWAY_AMBIENT_CREDENTIALS_NAMESPACES: "Ml" }),
    ).not.toThrow();
  });
});

/** A name the resolver answers with loopback: what a rebinding DNS would answer. */
const loopbackName = "kfp.rebinding.test";
const resolver = loopbackResolver(loopbackName);

describe("the outbound policy once a name is resolved", () => {
  it(`refuses ${loopbackName}, which resolves to loopback, unless the installer listed it`, async () => {
    await expect(checkedAddress(outboundPolicy({ resolver }), field, loopbackName)).rejects.toThrow(
      new RegExp(`^${field}: ${loopbackName} is 127\\.[0-9.]+, loopback, not allowed`),
    );
    await expect(
      checkedAddress(outboundPolicy({ allow: [loopbackName], resolver }), field, loopbackName),
    ).resolves.toMatch(/^127\./);
  });
});
