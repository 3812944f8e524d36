/**
 * spec.host and spec.ingress.tls on the real API server: the CRD's rules refuse a host that is no
 * DNS name, TLS without a host and two issuers, naming the field; the Ingress rendered from them
 * passes the API server's validation (dry-run).
 */
import { ApiException } from "@kubernetes/client-node";
import { beforeAll, describe, expect, it } from "vitest";
import type { ComponentResource } from "../../../src/apis/platform/component.ts";
import { PlatformKind } from "../../../src/apis/platform/platform.ts";
import { RestClient } from "../../../src/kube/rest.ts";
import { findRelease } from "../../../src/platform/catalog.ts";
import { renderIngress } from "../../../src/platform/component-objects.ts";
import { renderComponents } from "../../../src/platform/render.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { createPlatform } from "../../support/platform.ts";

beforeAll(() => installCrds([PlatformKind]));

async function refusal(write: Promise<unknown>): Promise<string> {
  const error = await write.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "the API server accepted it").toBeInstanceOf(ApiException);
  const body = (error as ApiException<unknown>).body;
  return String((typeof body === "string" ? JSON.parse(body) : (body as { message?: string })).message);
}

describe("spec.host", () => {
  it("is refused unless a DNS-1123 host name (no capitals, underscores or IP addresses), naming the field", async () => {
    const namespace = await testNamespace("host");
    for (const bad of ["ML.example.com", "ml_example.com", "10.0.0.1", "*.example.com", "ml.example.com."]) {
      const message = await refusal(createPlatform(namespace, { host: bad }));
      expect(message, bad).toContain("spec.host must be a DNS-1123 host name");
    }
    const tooLong = await refusal(createPlatform(namespace, { host: `${"a".repeat(64)}.example.com` }));
    expect(tooLong).toContain("spec.host");
    await createPlatform(namespace, { host: "ml.example.com" });
  });
});

describe("spec.ingress.tls", () => {
  it("is refused without spec.host, and with both an issuer and a cluster issuer, naming the field", async () => {
    const namespace = await testNamespace("tls");
    const noHost = await refusal(createPlatform(namespace, { ingress: { tls: { secretName: "ml-tls" } } }));
    expect(noHost).toContain("spec.host");
    expect(noHost).toContain("spec.ingress.tls needs spec.host");
    const both = await refusal(
      createPlatform(namespace, {
        host: "ml.example.com",
        ingress: { tls: { secretName: "ml-tls", issuer: "a", clusterIssuer: "b" } },
      }),
    );
    expect(both).toContain("spec.ingress.tls");
    expect(both).toContain("name at most one of them");
    const badSecret = await refusal(
      createPlatform(namespace, { host: "ml.example.com", ingress: { tls: { secretName: "Not_A_Name" } } }),
    );
    expect(badSecret).toContain("spec.ingress.tls.secretName");
    await createPlatform(namespace, {
      host: "ml.example.com",
      ingress: { tls: { secretName: "ml-tls", clusterIssuer: "acme" } },
    });
  });

  it("renders Ingresses the API server accepts with the tls section and cert-manager's annotation", async () => {
    const namespace = await testNamespace("tls");
    const release = findRelease("0.2.0");
    if (!release) throw new Error("release 0.2.0 missing");
    const spec = {
      host: "ml.example.com",
      ingress: { tls: { secretName: "ml-tls", clusterIssuer: "acme" } },
    };
    const rest = new RestClient(adminConfig());
    try {
      const exposed = renderComponents("slipway", namespace, spec, release).filter((c) => c.spec.ingress);
      expect(exposed).toHaveLength(2);
      for (const component of exposed) {
        const resource: ComponentResource = {
          apiVersion: "platform.slipway.dev/v1beta1",
          kind: "Component",
          metadata: { name: component.objectName, namespace, uid: "00000000-0000-0000-0000-000000000001" },
          spec: component.spec,
        };
        const accepted = await rest.request<{
          metadata: { annotations?: Record<string, string> };
          spec: { tls?: unknown; rules?: { host?: string }[] };
        }>("POST", `/apis/networking.k8s.io/v1/namespaces/${namespace}/ingresses`, {
          body: renderIngress(resource),
          query: { dryRun: "All" },
        });
        expect(accepted.spec.tls).toEqual([{ hosts: ["ml.example.com"], secretName: "ml-tls" }]);
        expect(accepted.spec.rules?.map((rule) => rule.host)).toEqual(["ml.example.com"]);
        expect(accepted.metadata.annotations?.["cert-manager.io/cluster-issuer"]).toBe("acme");
      }
    } finally {
      rest.close();
    }
  });
});
