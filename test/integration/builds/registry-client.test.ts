import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { RegistryClient, RegistryError } from "../../../src/builds/registry/client.ts";
import { freePorts } from "../../../src/dev/ports.ts";
import { startListener } from "../../support/builds/listener.ts";
import { startTcpProxy } from "../../support/builds/tcp-proxy.ts";
import {
  startRealmRegistry,
  startTokenRegistry,
  type TokenRegistry,
} from "../../support/builds/token-server.ts";
import { type RunningServer, startRegistry } from "../../support/fakes/build-server-children.ts";
import { pushImage } from "../../support/fakes/push-image.ts";

const user = { username: "builder", password: "correct-horse" };

describe("registry client against docker-registry with htpasswd auth", () => {
  let registry: RunningServer;
  beforeAll(async () => {
    registry = await startRegistry({ [user.username]: user.password });
  });
  afterAll(() => registry?.stop());

  const client = (credentials?: typeof user, extra = {}) => {
    const requests: string[] = [];
    const c = new RegistryClient({
      registry: registry.address,
      insecure: true,
      credentials: async () => credentials,
      onRequest: (statusClass) => requests.push(statusClass),
      ...extra,
    });
    return { c, requests };
  };

  it("pings, tells missing from existing and reads the digest; basic auth is sent up front once learned", async () => {
    const { c, requests } = client(user);
    await c.ping();
    expect(await c.manifestDigest("fraud-scorer", "v1")).toBeUndefined();
    const digest = await pushImage(registry.address, "fraud-scorer", "v1", user);
    expect(await c.manifestDigest("fraud-scorer", "v1")).toBe(digest);
    // ping: 401 then 200; missing: 404; exists: 200 — after the first challenge, one request per check.
    expect(requests).toEqual(["4xx", "2xx", "4xx", "2xx"]);
  });

  it("existence checks share kept-alive connections: 20 HEADs, one at a time, open no new connection", async () => {
    await pushImage(registry.address, "keep-alive", "v1", user);
    const proxy = await startTcpProxy(registry.address);
    const { c, requests } = client(user, { registry: proxy.address });
    await c.ping(); // the challenge learned (its 401 and the retry may take two connections)
    const before = proxy.connections();
    for (let i = 0; i < 20; i++) expect(await c.manifestDigest("keep-alive", "v1")).toMatch(/^sha256:/);
    expect(requests.filter((r) => r === "2xx")).toHaveLength(21);
    // fetch closed the connection after every HEAD answer: 20 more
    expect(proxy.connections()).toBe(before);
  });

  it("a kept-alive connection reset when reused is replaced at once: no failure, no backoff", async () => {
    await pushImage(registry.address, "keep-alive", "v1", user);
    const proxy = await startTcpProxy(registry.address);
    const { c, requests } = client(user, { registry: proxy.address, backoffMs: 60_000 });
    expect(await c.manifestDigest("keep-alive", "v1")).toMatch(/^sha256:/);
    proxy.resetNextReuse();
    expect(await c.manifestDigest("keep-alive", "v1")).toMatch(/^sha256:/);
    // the challenge, the first check, the second on a new connection; an "error" would mean a backoff
    expect(requests).toEqual(["4xx", "2xx", "2xx"]);
    expect(proxy.connections()).toBe(2);
  });

  it("a wrong password is 'credentials rejected', never 'missing'", async () => {
    const { c } = client({ username: user.username, password: "wrong" });
    const error = await c.manifestDigest("fraud-scorer", "v1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryError);
    expect(error).toMatchObject({ kind: "credentials-rejected", status: 401 });
    const anonymous = await client(undefined)
      .c.manifestDigest("fraud-scorer", "v1")
      .catch((e: unknown) => e);
    expect(anonymous).toMatchObject({
      kind: "credentials-rejected",
      message: expect.stringMatching(/no credentials configured/),
    });
  });

  it("retries an unreachable registry with backoff, then fails as transient", async () => {
    const [port] = await freePorts(1);
    const requests: string[] = [];
    const c = new RegistryClient({
      registry: `127.0.0.1:${port}`,
      insecure: true,
      attempts: 3,
      backoffMs: 10,
      onRequest: (s) => requests.push(s),
    });
    await expect(c.manifestDigest("x", "v1")).rejects.toMatchObject({ kind: "transient" });
    expect(requests).toEqual(["error", "error", "error"]);
  });
});

describe("registry client against docker-registry with Bearer-token auth", () => {
  let registry: TokenRegistry;
  beforeAll(async () => {
    registry = await startTokenRegistry({ [user.username]: user.password });
  });
  afterAll(() => registry?.stop());

  it("follows WWW-Authenticate to the token service, caches the token per scope, reads the digest", async () => {
    const requests: string[] = [];
    const c = new RegistryClient({
      registry: registry.address,
      insecure: true,
      allowedHosts: [registry.realmHost],
      credentials: async () => user,
      onRequest: (statusClass) => requests.push(statusClass),
    });
    expect(await c.manifestDigest("team/model", "v1")).toBeUndefined();
    const push = await registry.token("repository:team/model:pull,push", user);
    const digest = await pushImage(registry.address, "team/model", "v1", { bearer: push });
    expect(await c.manifestDigest("team/model", "v1")).toBe(digest);
    // 401 challenge, token (200), 404; then the cached token: 200 — one request for the second check.
    expect(requests).toEqual(["4xx", "2xx", "4xx", "2xx"]);
  });

  it("credentials the token service refuses are 'credentials rejected'", async () => {
    const c = new RegistryClient({
      registry: registry.address,
      insecure: true,
      allowedHosts: [registry.realmHost],
      credentials: async () => ({ ...user, password: "nope" }),
    });
    await expect(c.manifestDigest("team/model", "v1")).rejects.toMatchObject({
      kind: "credentials-rejected",
    });
    expect(registry.tokenRequests).toContain(401);
  });
});

/** A client of the plain-HTTP test registry at `address`, signing in as `user`. */
const userClient = (address: string) =>
  new RegistryClient({ registry: address, insecure: true, credentials: async () => user });

describe("registry client: credentials go only where the platform allows", () => {
  it("a Bearer realm on a host that is not allowed gets no request; the error names the host", async () => {
    const listener = await startListener();
    const registry = await startRealmRegistry(`http://${listener.address}/token`);
    onTestFinished(() => registry.stop());
    const c = userClient(registry.address);
    await expect(c.manifestDigest("team/model", "v1")).rejects.toMatchObject({
      kind: "refused",
      message: `registry ${registry.address}: Bearer realm http://${listener.address}/token refused: host ${listener.address} is neither the registry nor an allowed host (tenancy.allowedHosts)`,
    });
    expect(listener.requests).toEqual([]);
  });

  it("a realm of another scheme is refused before anything is fetched", async () => {
    const registry = await startRealmRegistry("file:///etc/passwd");
    onTestFinished(() => registry.stop());
    const c = userClient(registry.address);
    await expect(c.manifestDigest("team/model", "v1")).rejects.toMatchObject({
      kind: "refused",
      message: `registry ${registry.address}: Bearer realm file:///etc/passwd refused: scheme file (only https or http)`,
    });
  });

  it("a redirect is not followed: its target gets no request and is named", async () => {
    const target = await startListener();
    const redirecting = await startListener(() => ({
      status: 307,
      headers: { location: `http://${target.address}/v2/team/model/manifests/v1` },
    }));
    const c = userClient(redirecting.address);
    await expect(c.manifestDigest("team/model", "v1")).rejects.toMatchObject({
      kind: "refused",
      message: `${redirecting.address} answered 307, a redirect to ${target.address}: redirects are not followed`,
    });
    expect(target.requests).toEqual([]);
  });
});
