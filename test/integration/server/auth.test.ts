import { PassThrough } from "node:stream";
import { CoreV1Api } from "@kubernetes/client-node";
import { beforeAll, describe, expect, it } from "vitest";
import { PlatformKind } from "../../../src/apis/platform/platform.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import {
  createPlatform,
  grantPlatformAccess,
  serviceAccountToken,
  startServer,
  tokenReviewerConfig,
} from "./server.ts";

beforeAll(() => installCrds([PlatformKind]));

const get = (url: string, token?: string) =>
  fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });

describe("slipway server authentication (TokenReview) and authorisation (Kubernetes RBAC)", () => {
  it("answers 401 JSON without a token and with a token Kubernetes does not accept", async () => {
    const namespace = await testNamespace("srv");
    const url = await startServer(namespace);

    const none = await get(`${url}/api/v1/platform`);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect(await none.json()).toMatchObject({
      statusCode: 401,
      error: "Unauthorized",
      message: /missing bearer token/,
    });

    const bad = await get(`${url}/api/v1/platform`, "not-a-kubernetes-token");
    expect(bad.status).toBe(401);
    expect(bad.headers.get("www-authenticate")).toContain("Bearer");
    expect(await bad.json()).toMatchObject({ statusCode: 401, message: /not valid/ });

    // A token of a ServiceAccount that was deleted is refused by the real TokenReview too.
    const token = await serviceAccountToken(namespace, "gone");
    await adminConfig().makeApiClient(CoreV1Api).deleteNamespacedServiceAccount({ namespace, name: "gone" });
    // the API server's token authenticator reads ServiceAccounts from its own cache: it refuses the
    // token once that cache has the deletion (until then RBAC answers 403 for the account's rights);
    // a review accepted just before is kept by the server for tokenCacheSeconds (10 s)
    const revoked = await eventually(
      "the deleted ServiceAccount's token refused",
      () => get(`${url}/api/v1/platform/versions`, token),
      (response) => response.status !== 403,
      30_000,
    );
    expect(revoked.status).toBe(401);

    const health = await get(`${url}/healthz`);
    expect(health.status).toBe(200);
    const openapi = (await (await get(`${url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining(["/api/v1/platform", "/api/v1/platform/update", "/api/v1/platform/events"]),
    );
  });

  it("acts as the caller: 403 JSON when their RBAC does not allow it, 200 once a Role does", async () => {
    const namespace = await testNamespace("srv");
    await createPlatform(namespace, "0.0.9");
    const url = await startServer(namespace);
    const token = await serviceAccountToken(namespace, "viewer");

    const denied = await get(`${url}/api/v1/platform`, token);
    expect(denied.status).toBe(403);
    const body = (await denied.json()) as { statusCode: number; message: string };
    expect(body.statusCode).toBe(403);
    expect(body.message).toContain(`system:serviceaccount:${namespace}:viewer`);
    expect(body.message).toContain("platforms");

    const deniedEvents = await get(`${url}/api/v1/platform/events`, token);
    expect(deniedEvents.status).toBe(403);
    expect(deniedEvents.headers.get("content-type")).toContain("application/json");

    await grantPlatformAccess(namespace, "viewer", ["get", "list", "watch"]);
    const allowed = await get(`${url}/api/v1/platform`, token);
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("www-authenticate")).toBeNull(); // the challenge is a 401's only
    expect(await allowed.json()).toMatchObject({ name: "slipway", namespace, desiredVersion: "0.0.9" });

    // Reading is not updating: the viewer's patch is refused by Kubernetes, not by the server.
    const update = await fetch(`${url}/api/v1/platform/update`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ version: "0.1.0" }),
    });
    expect(update.status).toBe(403);
    expect(((await update.json()) as { message: string }).message).toMatch(/cannot patch/);
  });

  it("never logs the bearer token, even at trace level", async () => {
    const namespace = await testNamespace("srv");
    await createPlatform(namespace, "0.0.9");
    const lines: string[] = [];
    const logStream = new PassThrough();
    logStream.on("data", (chunk: Buffer) => lines.push(chunk.toString()));
    const url = await startServer(namespace, { logLevel: "trace", logStream });
    const token = await serviceAccountToken(namespace, "writer");
    await grantPlatformAccess(namespace, "writer", ["get", "list", "watch", "patch"]);

    expect((await get(`${url}/api/v1/platform`, token)).status).toBe(200);
    const update = await fetch(`${url}/api/v1/platform/update`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ version: "0.1.0" }),
    });
    expect(update.status).toBe(202);
    expect((await get(`${url}/api/v1/platform`, `${token}x`)).status).toBe(401);

    const log = lines.join("");
    expect(log).toContain("incoming request");
    expect(log).toContain(`"user":"system:serviceaccount:${namespace}:writer"`);
    for (const part of [token.slice(0, 20), token.slice(-20)]) expect(log).not.toContain(part);
    expect(log.toLowerCase()).not.toContain('"authorization"');
  });

  it("needs no rights of its own beyond reviewing tokens: the caller's rights do the work", async () => {
    const namespace = await testNamespace("srv");
    await createPlatform(namespace, "0.0.9");
    const url = await startServer(namespace, { kubeConfig: await tokenReviewerConfig(namespace) });
    const token = await serviceAccountToken(namespace, "operator");
    await grantPlatformAccess(namespace, "operator", ["get", "list", "watch", "patch"]);

    expect((await get(`${url}/api/v1/platform`)).status).toBe(401);
    const view = await get(`${url}/api/v1/platform`, token);
    expect(view.status).toBe(200);
    expect(await view.json()).toMatchObject({ namespace, desiredVersion: "0.0.9" });
    const update = await fetch(`${url}/api/v1/platform/update`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ version: "0.1.0" }),
    });
    expect(update.status).toBe(202);
  });
});
