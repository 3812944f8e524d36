/**
 * The platform registry's token authentication for real (issue #29 item 7): Debian's docker-registry
 * (the binary of the platform's registry image) configured as the platform renders it — `auth: token`
 * with the realm, service, issuer and the issuer's certificate as root bundle — against Slipway's own
 * issuer (`slipway server`'s /registry/token, its settings read from files laid out as the api-server's
 * pod mounts them). Real clients: the operator's registry client, Slipway's pusher (the Registry HTTP
 * API with the issuer's token) and buildah with `--creds`.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildahEnvironment, buildahPath } from "../../../src/builds/local-builder.ts";
import { mintBuildCredential } from "../../../src/builds/registry/build-credentials.ts";
import { RegistryClient, RegistryError } from "../../../src/builds/registry/client.ts";
import type { BasicCredentials } from "../../../src/builds/registry/credentials.ts";
import { credentialKeys } from "../../../src/platform/credentials.ts";
import { defaultCredentialTools } from "../../../src/platform/platform-resources.ts";
import { issuerFile, issuerKeys, registryTokenPath } from "../../../src/platform/registry-token.ts";
import { releaseCatalog } from "../../../src/platform/version-change.ts";
import { buildServer } from "../../../src/server/app.ts";
import type { IssuerSettings } from "../../../src/server/registry-token/issuer.ts";
import { issuerSettingsFromDir } from "../../../src/server/registry-token/settings.ts";
import { adminConfig } from "../../support/cluster.ts";
import { type RunningServer, startRegistry } from "../../support/fakes/build-server-children.ts";
import { pushImage } from "../../support/fakes/push-image.ts";

const run = promisify(execFile);
const platformPassword = "platform-password-0123456789";
const hmacKey = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

let dir: string;
let settings: IssuerSettings;
let server: FastifyInstance;
let realm: URL;
let registry: RunningServer;
/** How far ahead of the real clock the issuer's runs (a credential's expiry without waiting for it). */
let issuerAheadMs = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "slipway-registry-token-"));
  const signer = await defaultCredentialTools.tokenSigner();
  const keys = credentialKeys.registry;
  const values: Record<string, string> = {
    [keys.tokenSigningKey]: signer.keyPem,
    [keys.tokenCertificate]: signer.certPem,
    [keys.buildCredentialsKey]: hmacKey,
    [keys.password]: platformPassword,
  };
  for (const key of issuerKeys) {
    await mkdir(join(dir, key));
    await writeFile(issuerFile(dir, key), values[key] ?? "");
  }
  settings = issuerSettingsFromDir(dir, { namespace: "team", name: "lab" });
  server = await buildServer({
    kubeConfig: adminConfig(),
    platform: { namespace: "team", name: "lab" },
    releases: releaseCatalog,
    logLevel: "silent",
    registryToken: settings,
    now: () => Date.now() + issuerAheadMs,
  });
  realm = new URL(registryTokenPath, await server.listen({ port: 0, host: "127.0.0.1" }));
  registry = await startRegistry(
    {},
    {
      realm: realm.href,
      service: settings.service,
      issuer: settings.issuer,
      rootcertbundle: issuerFile(dir, keys.tokenCertificate),
    },
  );
});

afterAll(async () => {
  await registry?.stop();
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const platformUser = { username: "slipway", password: platformPassword };
const buildCredential = (repository: string, pull: string[] = [], lifetimeSeconds = 600) =>
  mintBuildCredential(hmacKey, {
    repository,
    pull,
    expiresAt: Math.floor(Date.now() / 1000) + lifetimeSeconds,
  });

/** The operator's registry client, signing in with `credentials` (the realm's host allowed, as the Platform vouches for it). */
const client = (credentials: BasicCredentials) =>
  new RegistryClient({
    registry: registry.address,
    insecure: true,
    allowedHosts: [realm.host],
    credentials: async () => credentials,
    attempts: 1,
  });

/** A token from the issuer as registry clients ask for it. */
async function token(credentials: BasicCredentials, ...scopes: string[]): Promise<string> {
  const url = new URL(realm);
  url.searchParams.set("service", settings.service);
  for (const scope of scopes) url.searchParams.append("scope", scope);
  const basic = Buffer.from(`${credentials.username}:${credentials.password}`).toString("base64");
  const response = await fetch(url, { headers: { authorization: `Basic ${basic}` } });
  if (!response.ok) throw new Error(`token: ${response.status}`);
  return ((await response.json()) as { token: string }).token;
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("the platform's registry with Slipway's token issuer", () => {
  it("refuses every request without a token, sending clients to the issuer", async () => {
    const response = await fetch(`http://${registry.address}/v2/team-a/model/blobs/uploads/`, {
      method: "POST",
    });
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate") ?? "";
    expect(challenge).toContain(`Bearer realm="${realm.href}",service="${settings.service}",scope="`);
    expect(challenge).toMatch(/scope="repository:team-a\/model:(pull,push|push,pull)"/);
  });

  it("the platform's user pushes and pulls any repository and lists the catalog", async () => {
    const digest = await pushImage(registry.address, "team-a/base", "1", {
      bearer: await token(platformUser, "repository:team-a/base:pull,push"),
    });
    expect(await client(platformUser).manifestDigest("team-a/base", "1")).toBe(digest);
    await pushImage(registry.address, "team-b/model", "v1", {
      bearer: await token(platformUser, "repository:team-b/model:pull,push"),
    });
    const catalog = await fetch(`http://${registry.address}/v2/_catalog`, {
      headers: { authorization: `Bearer ${await token(platformUser, "registry:catalog:*")}` },
    });
    expect(catalog.status).toBe(200);
    expect(((await catalog.json()) as { repositories: string[] }).repositories).toEqual(
      expect.arrayContaining(["team-a/base", "team-b/model"]),
    );
  });

  it("a per-build credential pushes and pulls its repository, pulls its base, and is denied anything else", async () => {
    const base = await pushImage(registry.address, "team-a/base", "2", {
      bearer: await token(platformUser, "repository:team-a/base:pull,push"),
    });
    const credential = buildCredential("team-a/model", ["team-a/base"]);
    const build = client(credential);
    expect(await build.manifestDigest("team-a/model", "v1")).toBeUndefined();
    const digest = await pushImage(registry.address, "team-a/model", "v1", {
      bearer: await token(credential, "repository:team-a/model:pull,push"),
    });
    expect(await build.manifestDigest("team-a/model", "v1")).toBe(digest);
    expect(await build.manifestDigest("team-a/base", "2")).toBe(base);

    // another repository: the issuer grants nothing there, so the registry refuses
    expect(await failure(build.manifestDigest("team-b/model", "v1"))).toMatchObject({
      kind: "credentials-rejected",
      status: 401,
    });
    const overOther = await token(credential, "repository:team-b/model:pull,push");
    expect(
      await failure(pushImage(registry.address, "team-b/model", "v1", { bearer: overOther })),
    ).toMatchObject({
      message: "blob upload start: 401",
    });
    // its base: pull only
    const overBase = await token(credential, "repository:team-a/base:pull,push");
    expect(
      await failure(pushImage(registry.address, "team-a/base", "3", { bearer: overBase })),
    ).toMatchObject({
      message: "blob upload start: 401",
    });
    const catalog = await fetch(`http://${registry.address}/v2/_catalog`, {
      headers: { authorization: `Bearer ${await token(credential, "registry:catalog:*")}` },
    });
    expect(catalog.status).toBe(401);
  });

  it("a per-build credential is refused once it has expired, and one made with another key never", async () => {
    const credential = buildCredential("team-a/expiring", [], 60);
    await pushImage(registry.address, "team-a/expiring", "v1", {
      bearer: await token(credential, "repository:team-a/expiring:pull,push"),
    });
    expect(await client(credential).manifestDigest("team-a/expiring", "v1")).toMatch(/^sha256:/);
    issuerAheadMs = 61_000;
    try {
      const error = await failure(client(credential).manifestDigest("team-a/expiring", "v1"));
      expect(error).toBeInstanceOf(RegistryError);
      expect(error).toMatchObject({
        kind: "credentials-rejected",
        message: `token service ${realm.host} answered 401`,
      });
    } finally {
      issuerAheadMs = 0;
    }
    const forged = mintBuildCredential("another-key", {
      repository: "team-a/expiring",
      pull: [],
      expiresAt: Math.floor(Date.now() / 1000) + 600,
    });
    expect(await failure(client(forged).manifestDigest("team-a/expiring", "v1"))).toMatchObject({
      kind: "credentials-rejected",
      message: `token service ${realm.host} answered 401`,
    });
  });

  it("buildah, the build pods' client, pushes with a per-build credential to its repository only", async () => {
    const storage = await mkdtemp(join(tmpdir(), "slipway-token-buildah-"));
    const options = [
      "--root",
      join(storage, "root"),
      "--runroot",
      join(storage, "run"),
      "--storage-driver",
      "vfs",
    ];
    const buildah = (...args: string[]) =>
      run(buildahPath, [...options, ...args], { env: buildahEnvironment(), timeout: 120_000 });
    try {
      const { stdout } = await buildah("from", "scratch");
      await buildah("commit", "--quiet", stdout.trim(), "localhost/probe:1");
      const credential = buildCredential("team-a/buildah", ["team-a/base"]);
      const creds = `--creds=${credential.username}:${credential.password}`;
      await buildah(
        "push",
        "--tls-verify=false",
        creds,
        "localhost/probe:1",
        `docker://${registry.address}/team-a/buildah:v1`,
      );
      expect(await client(platformUser).manifestDigest("team-a/buildah", "v1")).toMatch(/^sha256:/);
      // the base it may pull (an image with a real layer, pushed by the platform's user)
      const platformCreds = `--creds=${platformUser.username}:${platformUser.password}`;
      const base = `${registry.address}/team-a/base:buildah`;
      await buildah("push", "--tls-verify=false", platformCreds, "localhost/probe:1", `docker://${base}`);
      await buildah("rmi", "--force", "localhost/probe:1").catch(() => {});
      await buildah("pull", "--quiet", "--tls-verify=false", creds, base);
      // another repository it may not push to
      await buildah("tag", base, "localhost/probe:1");
      const refused = await failure(
        buildah(
          "push",
          "--tls-verify=false",
          creds,
          "localhost/probe:1",
          `docker://${registry.address}/team-b/model:v9`,
        ),
      );
      expect(String((refused as { stderr?: string })?.stderr)).toMatch(
        /denied: requested access to the resource is denied/,
      );
      expect(await client(platformUser).manifestDigest("team-b/model", "v9")).toBeUndefined();
    } finally {
      await run(buildahPath, [...options, "rm", "--all"], { env: buildahEnvironment() }).catch(() => {});
      await run(buildahPath, [...options, "rmi", "--all", "--force"], { env: buildahEnvironment() }).catch(
        () => {},
      );
      await rm(storage, { recursive: true, force: true }).catch(() => {});
    }
  });
});
