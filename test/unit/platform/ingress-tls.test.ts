import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import type { ComponentResource } from "../../../src/apis/platform/component.ts";
import type { PlatformResource } from "../../../src/apis/platform/platform.ts";
import { findRelease } from "../../../src/platform/catalog.ts";
import { renderIngress } from "../../../src/platform/component-objects.ts";
import { renderComponents } from "../../../src/platform/render.ts";
import { buildUiServer } from "../../../src/server/app.ts";

const release = findRelease("0.2.0");
if (!release) throw new Error("release 0.2.0 missing");
type Spec = NonNullable<PlatformResource["spec"]>;

const exposed = (spec: Spec) =>
  renderComponents("slipway", "ns", spec, release)
    .filter((c) => c.spec.ingress)
    .map(
      (c): ComponentResource => ({
        apiVersion: "platform.slipway.dev/v1beta1",
        kind: "Component",
        metadata: { name: c.objectName, namespace: "ns", uid: `u-${c.name}` },
        spec: c.spec,
      }),
    );

describe("the platform's Ingress over TLS", () => {
  it("spec.ingress.tls: each Ingress serves spec.host with the Secret; web and api-server send HSTS", () => {
    const components = exposed({ host: "ml.example.com", ingress: { tls: { secretName: "ml-tls" } } });
    expect(components.map((c) => c.spec.component).sort()).toEqual(["api-server", "web"]);
    for (const component of components) {
      const ingress = renderIngress(component);
      expect(ingress?.spec?.tls).toEqual([{ hosts: ["ml.example.com"], secretName: "ml-tls" }]);
      expect(ingress?.metadata?.annotations).toBeUndefined();
      expect(component.spec.args).toContain("--hsts");
    }
  });

  it("an issuer becomes cert-manager's annotation (Issuer or ClusterIssuer)", () => {
    const [issued] = exposed({
      host: "ml.example.com",
      ingress: { tls: { secretName: "ml-tls", issuer: "letsencrypt" } },
    });
    expect(renderIngress(issued as ComponentResource)?.metadata?.annotations).toEqual({
      "cert-manager.io/issuer": "letsencrypt",
    });
    const [cluster] = exposed({
      host: "ml.example.com",
      ingress: { tls: { secretName: "ml-tls", clusterIssuer: "acme" } },
    });
    expect(renderIngress(cluster as ComponentResource)?.metadata?.annotations).toEqual({
      "cert-manager.io/cluster-issuer": "acme",
    });
  });

  it("without spec.ingress.tls: no tls section, no annotation, no HSTS flag", () => {
    for (const component of exposed({ host: "ml.example.com" })) {
      const ingress = renderIngress(component);
      expect(ingress?.spec?.tls).toBeUndefined();
      expect(ingress?.metadata?.annotations).toBeUndefined();
      expect(component.spec.args).not.toContain("--hsts");
    }
  });
});

describe("slipway server --hsts", () => {
  async function uiReply(hsts: boolean) {
    const webRoot = await mkdtemp(join(tmpdir(), "slipway-web-"));
    onTestFinished(() => rm(webRoot, { recursive: true, force: true }));
    await writeFile(join(webRoot, "index.html"), "<!doctype html><title>ui</title>");
    const app = await buildUiServer({ webRoot, logLevel: "silent", hsts });
    onTestFinished(() => app.close());
    return app.inject({ method: "GET", url: "/update" });
  }

  it("sends Strict-Transport-Security on every reply with --hsts, and not without", async () => {
    expect((await uiReply(true)).headers["strict-transport-security"]).toBe("max-age=31536000");
    expect((await uiReply(false)).headers["strict-transport-security"]).toBeUndefined();
  });
});
