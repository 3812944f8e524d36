/** The Ingress's host and TLS: from the install/update flags to the Platform spec to the rendered Ingresses. */
import { describe, expect, it } from "vitest";
import type { ComponentResource } from "../../../src/apis/platform/component.ts";
import { ingressHostProblem } from "../../../src/apis/platform/schemas.ts";
import { ingressSpecFromFlags } from "../../../src/cli/platform/ingress-flags.ts";
import { platformSpecFromFlags } from "../../../src/cli/platform/install.ts";
import { findRelease } from "../../../src/platform/catalog.ts";
import { renderIngress } from "../../../src/platform/component-objects.ts";
import { renderComponents } from "../../../src/platform/render.ts";
import { defaultGlobals } from "./cli-globals.ts";

const release = findRelease("0.2.0");
if (!release) throw new Error("release 0.2.0 missing");

const ingresses = (spec: Record<string, unknown>) =>
  renderComponents("slipway", "ns", spec, release as NonNullable<typeof release>)
    .filter((c) => c.spec.ingress)
    .map((c) =>
      renderIngress({
        apiVersion: "platform.slipway.dev/v1beta1",
        kind: "Component",
        metadata: { name: c.objectName, namespace: "ns", uid: `u-${c.name}` },
        spec: c.spec,
      } satisfies ComponentResource),
    );

describe("the Ingress's host and TLS", () => {
  it("slipway install --host --tls-secret: each rendered Ingress has the rule's host and spec.tls for it", () => {
    const spec = platformSpecFromFlags({
      ...defaultGlobals,
      version: "0.2.0",
      host: "ml.example.com",
      tlsSecret: "ml-tls",
    });
    expect(spec).toMatchObject({ host: "ml.example.com", ingress: { tls: { secretName: "ml-tls" } } });
    const rendered = ingresses(spec);
    expect(rendered.map((i) => i?.spec?.rules?.[0]?.http?.paths[0]?.path).sort()).toEqual(["/", "/api"]);
    for (const ingress of rendered) {
      expect(ingress?.apiVersion).toBe("networking.k8s.io/v1");
      expect(ingress?.spec?.rules?.map((rule) => rule.host)).toEqual(["ml.example.com"]);
      expect(ingress?.spec?.tls).toEqual([{ hosts: ["ml.example.com"], secretName: "ml-tls" }]);
    }
  });

  it("install refuses a bad host, a bad Secret name, and TLS without a host before it applies anything", () => {
    const install = (flags: object) => () =>
      platformSpecFromFlags({ ...defaultGlobals, version: "0.2.0", ...flags });
    expect(install({ host: "ML_example.com" })).toThrow(
      "--host must be a DNS-1123 host name: lowercase letters, digits, '-' and '.', labels of at most 63 characters, not an IP address (e.g. ml.example.com), not \"ML_example.com\"",
    );
    expect(install({ host: "ml.example.com", tlsSecret: "Not_A_Name" })).toThrow(
      "--tls-secret must be a Secret name (lowercase letters, digits, '-' and '.'), not \"Not_A_Name\"",
    );
    expect(install({ tlsSecret: "ml-tls" })).toThrow("--tls-secret needs --host");
    // --set host=… gives it too
    expect(install({ tlsSecret: "ml-tls", set: ["host=ml.example.com"] })()).toMatchObject({
      host: "ml.example.com",
    });
  });

  it("update's flags are a merge patch: the host, the Secret (an issuer kept), or --no-tls removing spec.ingress.tls", () => {
    expect(ingressSpecFromFlags({ host: "ml.example.com" })).toEqual({ host: "ml.example.com" });
    expect(ingressSpecFromFlags({ tlsSecret: "ml-tls" })).toEqual({
      ingress: { tls: { secretName: "ml-tls" } },
    });
    expect(ingressSpecFromFlags({ tls: false })).toEqual({ ingress: { tls: null } });
    expect(ingressSpecFromFlags({ tls: true })).toEqual({});
    expect(() => ingressSpecFromFlags({ tlsSecret: "ml-tls", tls: false })).toThrow(
      "--tls-secret and --no-tls: give one of them",
    );
  });

  it("a host is a DNS-1123 name of labels up to 63 characters, never an IP address", () => {
    for (const good of ["ml.example.com", "localhost", "a-b.c0", `${"a".repeat(63)}.example.com`])
      expect(ingressHostProblem("spec.host", good), good).toBeUndefined();
    for (const bad of [
      "ML.example.com",
      "ml_example.com",
      "-ml.example.com",
      "ml.example.com.",
      "10.0.0.1",
      "*.example.com",
      `${"a".repeat(64)}.example.com`,
      `${"a.".repeat(127)}a`,
      "",
    ])
      expect(ingressHostProblem("spec.host", bad), bad).toContain("spec.host must be a DNS-1123 host name");
  });
});
