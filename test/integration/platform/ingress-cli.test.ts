/** `slipway update --host/--tls-secret/--no-tls` (bin/slipway) on the real API server: the Platform's Ingress fields. */
import { beforeAll, describe, expect, it } from "vitest";
import { PlatformKind } from "../../../src/apis/platform/platform.ts";
import { cli, readPlatform } from "../../e2e/platform/support.ts";
import { testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { createPlatform } from "../../support/platform.ts";

beforeAll(() => installCrds([PlatformKind]));

describe("slipway update: the Ingress's host and TLS", () => {
  it("sets the host and the TLS Secret (an issuer kept), removes TLS with --no-tls, refuses a bad host before writing", async () => {
    const namespace = await testNamespace("ingress-cli");
    await createPlatform(namespace, {
      host: "old.example.com",
      ingress: { tls: { secretName: "old-tls", clusterIssuer: "acme" } },
    });

    const set = await cli(
      namespace,
      "update",
      "--host",
      "ml.example.com",
      "--tls-secret",
      "ml-tls",
      "--no-wait",
    );
    expect(set.code, set.stderr).toBe(0);
    let platform = await readPlatform(namespace);
    expect(platform.spec.host).toBe("ml.example.com");
    expect(platform.spec.ingress?.tls).toEqual({ secretName: "ml-tls", clusterIssuer: "acme" });

    const bad = await cli(namespace, "update", "--host", "ML_host", "--no-wait");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("--host must be a DNS-1123 host name");
    expect((await readPlatform(namespace)).spec.host).toBe("ml.example.com");

    const plain = await cli(namespace, "update", "--no-tls", "--no-wait");
    expect(plain.code, plain.stderr).toBe(0);
    platform = await readPlatform(namespace);
    expect(platform.spec.ingress?.tls).toBeUndefined();
    expect(platform.spec.host).toBe("ml.example.com");

    const nothing = await cli(namespace, "update", "--no-wait");
    expect(nothing.code).not.toBe(0);
    expect(nothing.stderr).toContain(
      "nothing to update: give --version, --acknowledge, --host, --tls-secret or --no-tls",
    );
  });
});
