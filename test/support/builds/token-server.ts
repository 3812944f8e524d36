/**
 * A registry with Bearer-token auth: docker-registry configured with `auth.token`, and the token
 * service it names — a small HTTP server issuing RS256 JWTs (certificate in the x5c header, as the
 * registry verifies them against its root bundle) to callers with the right basic credentials.
 */
import { execFileSync } from "node:child_process";
import { randomUUID, sign } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningServer, startRegistry } from "../fakes/build-server-children.ts";

const service = "slipway-registry";
const issuer = "slipway-tests";
const b64url = (data: Buffer | string) => Buffer.from(data).toString("base64url");

export interface TokenRegistry extends RunningServer {
  /** A token for `scope` (e.g. `repository:x:pull,push`), as the registry's clients would get it. */
  token(scope: string, credentials: { username: string; password: string }): Promise<string>;
  /** Token requests the service answered, with the status it gave. */
  tokenRequests: number[];
  /** host:port of the token service (the realm). */
  realmHost: string;
}

/** docker-registry asking its clients for a Bearer token from `realm` (which nothing here needs to answer). */
export async function startRealmRegistry(realm: string): Promise<RunningServer> {
  const keys = await mkdtemp(join(tmpdir(), "slipway-realm-"));
  await writeFile(join(keys, "bundle.pem"), selfSigned(keys).certPem);
  const registry = await startRegistry(
    {},
    { realm, service, issuer, rootcertbundle: join(keys, "bundle.pem") },
  );
  return {
    ...registry,
    async stop() {
      await registry.stop();
      await rm(keys, { recursive: true, force: true });
    },
  };
}

/** A self-signed RSA key and certificate in `dir` (the token signer and the registry's root bundle). */
function selfSigned(dir: string) {
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=slipway-token",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  const certPem = readFileSync(join(dir, "cert.pem"), "utf8");
  return {
    key: readFileSync(join(dir, "key.pem"), "utf8"),
    certPem,
    certDer: certPem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, ""),
  };
}

/** An RS256 JWT granting `scope` to `subject`, its certificate in the x5c header. */
function issueToken(signer: { key: string; certDer: string }, scope: string, subject: string): string {
  const now = Math.floor(Date.now() / 1000);
  const access = scope
    ? scope.split(" ").map((s) => {
        const [type, name, actions] = s.split(":");
        return { type, name, actions: (actions ?? "").split(",") };
      })
    : [];
  const header = b64url(JSON.stringify({ typ: "JWT", alg: "RS256", x5c: [signer.certDer] }));
  const claims = b64url(
    JSON.stringify({
      iss: issuer,
      sub: subject,
      aud: service,
      exp: now + 300,
      nbf: now - 10,
      iat: now,
      jti: randomUUID(),
      access,
    }),
  );
  const signature = b64url(sign("sha256", Buffer.from(`${header}.${claims}`), signer.key));
  return `${header}.${claims}.${signature}`;
}

export async function startTokenRegistry(users: Record<string, string>): Promise<TokenRegistry> {
  const keys = await mkdtemp(join(tmpdir(), "slipway-token-"));
  const signer = selfSigned(keys);
  const tokenRequests: number[] = [];
  const issue = (scope: string, subject: string) => issueToken(signer, scope, subject);

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://token");
    const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    const [user, ...rest] = basic ? Buffer.from(basic, "base64").toString().split(":") : [];
    const ok = user !== undefined && users[user] === rest.join(":");
    tokenRequests.push(ok ? 200 : 401);
    if (!ok) {
      response
        .writeHead(401, { "content-type": "application/json" })
        .end('{"errors":[{"code":"UNAUTHORIZED"}]}');
      return;
    }
    response.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        token: issue(url.searchParams.getAll("scope").join(" "), user ?? ""),
        expires_in: 300,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("token server has no port");
  const realm = `http://127.0.0.1:${address.port}/token`;
  await writeFile(join(keys, "bundle.pem"), signer.certPem);
  const registry = await startRegistry(
    {},
    { realm, service, issuer, rootcertbundle: join(keys, "bundle.pem") },
  );
  return {
    ...registry,
    tokenRequests,
    realmHost: new URL(realm).host,
    async token(scope, credentials) {
      const url = new URL(realm);
      url.searchParams.set("service", service);
      url.searchParams.set("scope", scope);
      const auth = Buffer.from(`${credentials.username}:${credentials.password}`).toString("base64");
      const answer = (await (await fetch(url, { headers: { authorization: `Basic ${auth}` } })).json()) as {
        token: string;
      };
      return answer.token;
    },
    async stop() {
      await registry.stop();
      await new Promise((resolve) => server.close(resolve));
      await rm(keys, { recursive: true, force: true });
    },
  };
}
