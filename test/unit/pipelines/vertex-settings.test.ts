/** A vertex Provider's parameters through the operator's outbound policy: where its JWT may go, whose credentials it may use. */
import { describe, expect, it } from "vitest";
import type { ProviderConfig } from "../../../src/pipelines/backend.ts";
import { type OutboundSettings, outboundPolicy } from "../../../src/pipelines/outbound-policy.ts";
import { vertexSettings } from "../../../src/pipelines/vertex/settings.ts";

const keyed = { credentials: { keySecret: { name: "vertex-key" } } };

const settings = (parameters: Record<string, unknown>, outbound: OutboundSettings = {}) =>
  vertexSettings(
    {
      key: { namespace: "ml", name: "vertex" },
      spec: {
        type: "vertex",
        parameters: { project: "ml-project", location: "europe-west4", ...parameters },
      },
      version: "p1",
    } as unknown as ProviderConfig,
    outboundPolicy(outbound),
  );

const rule = "not allowed by the operator's outbound policy (SLIPWAY_OUTBOUND_ALLOW)";

describe("vertex Provider parameters through the outbound policy", () => {
  it("Google's regional endpoint needs no listing", () => {
    expect(settings(keyed).apiEndpoint).toBe("europe-west4-aiplatform.googleapis.com");
    expect(settings({ ...keyed, apiEndpoint: "europe-west4-aiplatform.googleapis.com:443" }).port).toBe(443);
  });

  it.each([
    [
      "vertex-proxy.example.com",
      "spec.parameters.apiEndpoint: vertex-proxy.example.com is not Google's endpoint (europe-west4-aiplatform.googleapis.com) nor on the operator's outbound allow list (SLIPWAY_OUTBOUND_ALLOW)",
    ],
    [
      "us-central1-aiplatform.googleapis.com",
      "is not Google's endpoint (europe-west4-aiplatform.googleapis.com)",
    ],
    ["127.0.0.1:8443", `spec.parameters.apiEndpoint: 127.0.0.1 is loopback, ${rule}`],
    [
      "169.254.169.254:80",
      `spec.parameters.apiEndpoint: 169.254.169.254 is link-local (cloud metadata), ${rule}`,
    ],
    ["localhost:8443", `spec.parameters.apiEndpoint: localhost is loopback, ${rule}`],
  ])("a key's JWT never goes to %s unless listed", (apiEndpoint, message) => {
    expect(() => settings({ ...keyed, apiEndpoint })).toThrow(message);
  });

  it("a host the installer listed (by name or CIDR) is let through", () => {
    expect(
      settings({ ...keyed, apiEndpoint: "vertex-proxy.example.com" }, { allow: ["vertex-proxy.example.com"] })
        .apiEndpoint,
    ).toBe("vertex-proxy.example.com");
    expect(settings({ ...keyed, apiEndpoint: "10.1.2.3:443" }, { allow: ["10.1.0.0/16"] }).port).toBe(443);
    expect(
      settings({ apiEndpoint: "127.0.0.1:8443", plaintext: true }, { allow: ["127.0.0.1"] }).plaintext,
    ).toBe(true);
  });

  it("ambient credentials only in the namespaces the installer named", () => {
    expect(() => settings({})).toThrow(
      "spec.parameters.credentials: none given, and the operator's ambient cloud credentials are not for namespace ml (SLIPWAY_AMBIENT_CREDENTIALS_NAMESPACES)",
    );
    expect(() => settings({}, { ambientCredentialsNamespaces: ["team"] })).toThrow("not for namespace ml");
    expect(settings({}, { ambientCredentialsNamespaces: ["ml"] }).keySecret).toBeUndefined();
    expect(settings({}, { ambientCredentialsNamespaces: ["*"] }).project).toBe("ml-project");
  });
});

describe("vertex Provider parameters against their schema", () => {
  it("defaults: the key's name in its Secret, no plaintext", () => {
    expect(settings(keyed)).toEqual({
      project: "ml-project",
      location: "europe-west4",
      keySecret: { name: "vertex-key", key: "key.json" },
      apiEndpoint: "europe-west4-aiplatform.googleapis.com",
      plaintext: false,
    });
  });

  it.each([
    [{ project: "ML" }, "spec.parameters.project: Expected string to match"],
    [{ location: undefined }, "spec.parameters.location: Expected string"],
    [{ serviceAccount: "runner" }, "spec.parameters.serviceAccount: Expected string to match"],
    [{ network: "default" }, "spec.parameters.network: Expected string to match"],
    [{ credentials: {} }, "spec.parameters.credentials.keySecret: Expected required property"],
    [{ credentials: { keySecret: { name: "Key" } } }, "spec.parameters.credentials.keySecret.name: Expected"],
    [{ ...keyed, plaintext: "true" }, "spec.parameters.plaintext: Expected boolean"],
    [{ ...keyed, plaintext: true }, "spec.parameters.plaintext: only with a loopback apiEndpoint"],
  ])("refuses %j naming the field and the rule", (parameters, message) => {
    expect(() => settings(parameters)).toThrow(message);
  });
});
