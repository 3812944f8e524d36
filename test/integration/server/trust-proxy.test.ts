/**
 * The in-cluster api-server behind the Ingress: the --trust-proxy its Platform renders, on a real
 * `slipway server` with real tokens. Junk tokens from one forwarded client do not lock out another;
 * a peer that is not a trusted proxy cannot pick its allowance with X-Forwarded-For.
 */
import { request as httpRequest } from "node:http";
import { ApiException } from "@kubernetes/client-node";
import { beforeAll, describe, expect, it } from "vitest";
import { PlatformKind } from "../../../src/apis/platform/platform.ts";
import { parseTrustProxy } from "../../../src/cli/server.ts";
import { findRelease } from "../../../src/platform/catalog.ts";
import { renderComponents } from "../../../src/platform/render.ts";
import { testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { createPlatform as createPlatformSpec } from "../../support/platform.ts";
import { createPlatform, grantPlatformAccess, serviceAccountToken, startServerApp } from "./server.ts";

beforeAll(() => installCrds([PlatformKind]));

/** The --trust-proxy value the api-server Component of `spec` is rendered with. */
function renderedTrustProxy(spec: object): string {
  const release = findRelease("0.2.0");
  if (!release) throw new Error("release 0.2.0 missing");
  const args = renderComponents("slipway", "ns", spec, release).find((c) => c.name === "api-server")?.spec
    .args;
  const at = args?.indexOf("--trust-proxy") ?? -1;
  expect(at, "the api-server is rendered without --trust-proxy").toBeGreaterThanOrEqual(0);
  return args?.[at + 1] ?? "";
}

interface Reply {
  status: number;
  body: string;
}

/** GET /api/v1/platform from the local address `from` (a loopback alias), with X-Forwarded-For if given. */
function get(base: string, from: string, token: string, forwardedFor?: string): Promise<Reply> {
  const url = new URL("/api/v1/platform", base);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        localAddress: from,
        agent: false,
        headers: {
          authorization: `Bearer ${token}`,
          ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}),
        },
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          body += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on("error", reject);
    request.end();
  });
}

const proxy = "127.0.0.1";
const stranger = "127.0.0.2";

describe("slipway server behind the Ingress: the failure allowance per forwarded client", () => {
  it("junk from one client does not lock out another; an untrusted peer's X-Forwarded-For is ignored", async () => {
    const namespace = await testNamespace("proxy");
    await createPlatform(namespace, "0.0.9");
    const { url } = await startServerApp(namespace, {
      trustProxy: parseTrustProxy(renderedTrustProxy({ ingress: { trustedProxies: [proxy] } })),
      limits: { authFailuresPerMinute: 5 },
    });
    const token = await serviceAccountToken(namespace, "viewer");
    await grantPlatformAccess(namespace, "viewer", ["get"]);

    // client A, through the proxy, spends its allowance; a spoofed first hop does not renew it
    for (let i = 0; i < 5; i++)
      expect((await get(url, proxy, `junk-a-${i}`, "203.0.113.7")).status).toBe(401);
    const limitedA = await get(url, proxy, "junk-a-5", "198.51.100.1, 203.0.113.7");
    expect(limitedA.status).toBe(429);
    expect(limitedA.body).toContain("too many authentication failures from 203.0.113.7");

    // client B, through the same proxy, still has its own: a token not yet reviewed is served
    expect((await get(url, proxy, token, "203.0.113.8")).status).toBe(200);
    expect((await get(url, proxy, "junk-b-0", "203.0.113.8")).status).toBe(401);

    // a peer that is no trusted proxy names B (and then others) as the client: its own allowance counts
    for (let i = 0; i < 5; i++)
      expect(
        (await get(url, stranger, `junk-s-${i}`, i === 0 ? "203.0.113.8" : `203.0.113.${20 + i}`)).status,
      ).toBe(401);
    const limitedStranger = await get(url, stranger, "junk-s-5", "203.0.113.99");
    expect(limitedStranger.status).toBe(429);
    expect(limitedStranger.body).toContain(`too many authentication failures from ${stranger}`);
    // and B's allowance is untouched
    expect((await get(url, proxy, "junk-b-1", "203.0.113.8")).status).toBe(401);
  });

  it("the Platform refuses a trusted proxy that is no address or CIDR, naming the field", async () => {
    const namespace = await testNamespace("proxy");
    const error = await createPlatformSpec(namespace, { ingress: { trustedProxies: ["10.0.0.0/33"] } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiException);
    const body = (error as ApiException<unknown>).body;
    const message = String(
      (typeof body === "string" ? JSON.parse(body) : (body as { message?: string })).message,
    );
    expect(message).toContain("spec.ingress.trustedProxies");
    expect(message).toContain("must be an IP address or a CIDR");
    await createPlatformSpec(namespace, {
      ingress: { trustedProxies: ["10.244.0.0/16", "192.0.2.10", "fc00::/7"] },
    });
  });
});
