/** The platform registry's token issuer (pure parts): scopes, grants, the JWT the registry verifies, the answers. */
import { createPrivateKey, generateKeyPairSync, verify, X509Certificate } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { mintBuildCredential } from "../../../src/builds/registry/build-credentials.ts";
import { answerTokenRequest, type IssuerSettings } from "../../../src/server/registry-token/issuer.ts";
import { signingAlgorithm, signRegistryToken } from "../../../src/server/registry-token/jwt.ts";
import { grantedAccess, parseScopes } from "../../../src/server/registry-token/scopes.ts";
import { issueSelfSignedCertificate } from "../../../src/webhook/certificates.ts";

const build = {
  kind: "build" as const,
  grant: { repository: "team-a/model", pull: ["team-a/base"], expiresAt: 100 },
};

describe("scopes", () => {
  it("parses the spec's grammar: repeated or space-separated, a resource name with a port, a class dropped", () => {
    expect(
      parseScopes([
        "repository:team-a/model:pull,push",
        "registry:catalog:* repository:host:5000/a:pull",
        "repository(plugin):p:pull",
        "nonsense",
        "repository:x:",
      ]),
    ).toEqual([
      { type: "repository", name: "team-a/model", actions: ["pull", "push"] },
      { type: "registry", name: "catalog", actions: ["*"] },
      { type: "repository", name: "host:5000/a", actions: ["pull"] },
      { type: "repository", name: "p", actions: ["pull"] },
    ]);
  });

  it("the platform's user gets what it asks on every repository and the catalog", () => {
    const asked = parseScopes(["repository:any/thing:pull,push,delete", "registry:catalog:*"]);
    expect(grantedAccess({ kind: "platform" }, asked)).toEqual(asked);
    expect(grantedAccess({ kind: "platform" }, parseScopes(["registry:other:*"]))).toEqual([]);
  });

  it("a build's credential: push and pull on its repository, pull on its base, nothing else", () => {
    const asked = parseScopes([
      "repository:team-a/model:pull,push,delete",
      "repository:team-a/base:pull,push",
      "repository:team-b/model:pull,push",
      "repository:team-a/model-2:pull",
      "registry:catalog:*",
    ]);
    expect(grantedAccess(build, asked)).toEqual([
      { type: "repository", name: "team-a/model", actions: ["pull", "push"] },
      { type: "repository", name: "team-a/base", actions: ["pull"] },
    ]);
  });

  it("merges what is asked twice for one resource", () => {
    const asked = parseScopes(["repository:team-a/model:pull", "repository:team-a/model:push"]);
    expect(grantedAccess(build, asked)).toEqual([
      { type: "repository", name: "team-a/model", actions: ["pull", "push"] },
    ]);
  });
});

describe("the token and the endpoint's answers", () => {
  let settings: IssuerSettings;
  const now = new Date(50_000);
  const basic = (username: string, password: string) =>
    `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
  const request = (authorization?: string, scopes: string[] = ["repository:team-a/model:pull,push"]) =>
    answerTokenRequest(settings, { service: "reg.ns.svc:5000", scopes, authorization }, now);
  const decode = (token: string) => {
    const [header = "", claims = "", signature = ""] = token.split(".");
    const json = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString());
    return { header: json(header), claims: json(claims), signature, signed: `${header}.${claims}` };
  };

  beforeAll(async () => {
    const signer = await issueSelfSignedCertificate("test-issuer", new Date(), 1);
    settings = {
      issuer: "api.ns.svc",
      service: "reg.ns.svc:5000",
      signer: { key: createPrivateKey(signer.keyPem), certificatePem: signer.certPem },
      platformUser: { username: "slipway", password: "platform-password" },
      buildCredentialsKey: "hmac-key",
    };
  });

  it("the platform's user: an ES256 JWT the registry verifies — x5c its certificate, aud a string, exp/nbf, the access asked", () => {
    const answer = request(basic("slipway", "platform-password"), ["registry:catalog:*"]);
    if (answer.status !== 200) throw new Error(answer.message);
    expect(answer.body).toMatchObject({ expires_in: 300, issued_at: now.toISOString() });
    expect(answer.body.access_token).toBe(answer.body.token);
    const { header, claims, signature, signed } = decode(answer.body.token);
    const certificate = new X509Certificate(settings.signer.certificatePem);
    expect(header).toEqual({ typ: "JWT", alg: "ES256", x5c: [certificate.raw.toString("base64")] });
    expect(claims).toMatchObject({
      iss: "api.ns.svc",
      sub: "slipway",
      aud: "reg.ns.svc:5000",
      iat: 50,
      nbf: 50,
      exp: 350,
      access: [{ type: "registry", name: "catalog", actions: ["*"] }],
    });
    expect(typeof claims.jti).toBe("string");
    // JWS ES256: r‖s, 64 bytes, by the certificate's key
    const raw = Buffer.from(signature, "base64url");
    expect(raw).toHaveLength(64);
    expect(
      verify("sha256", Buffer.from(signed), { key: certificate.publicKey, dsaEncoding: "ieee-p1363" }, raw),
    ).toBe(true);
  });

  it("a build's credential: its grant only, the token no longer than the credential", () => {
    const credentials = mintBuildCredential("hmac-key", build.grant);
    const answer = request(basic(credentials.username, credentials.password), [
      "repository:team-a/model:pull,push",
      "repository:team-b/model:pull,push",
    ]);
    if (answer.status !== 200) throw new Error(answer.message);
    expect(answer.body.expires_in).toBe(50);
    const { claims } = decode(answer.body.token);
    expect(claims).toMatchObject({ sub: credentials.username, exp: 100 });
    expect(claims.access).toEqual([{ type: "repository", name: "team-a/model", actions: ["pull", "push"] }]);
  });

  it("401 without credentials, with a wrong password, an expired or forged build credential; the reason logged, not answered", () => {
    const expired = mintBuildCredential("hmac-key", { ...build.grant, expiresAt: 50 });
    const forged = mintBuildCredential("other-key", build.grant);
    for (const [authorization, reason] of [
      [undefined, "no Basic credentials"],
      ["Bearer x", "no Basic credentials"],
      [basic("slipway", "wrong"), "unknown user or wrong password for slipway"],
      [basic("someone", "platform-password"), "unknown user or wrong password for someone"],
      [basic(expired.username, expired.password), "expired at 50"],
      [basic(forged.username, forged.password), "the password is not the user name's HMAC"],
    ] as const) {
      const answer = request(authorization);
      expect(answer).toEqual({
        status: 401,
        message: "authentication required: valid registry credentials",
        reason,
      });
    }
  });

  it("400 for another service (or none), whoever asks", () => {
    for (const service of ["other:5000", undefined]) {
      const answer = answerTokenRequest(
        settings,
        { service, scopes: [], authorization: basic("slipway", "platform-password") },
        now,
      );
      expect(answer).toMatchObject({ status: 400, reason: "unknown service" });
    }
  });

  it("signs with RS256 for an RSA key; refuses any other key", () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const claims = { issuer: "i", service: "s", subject: "u", access: [], issuedAt: 1, expiresAt: 2 };
    const token = signRegistryToken(
      { key: rsa.privateKey, certificatePem: settings.signer.certificatePem },
      claims,
    );
    const { header, signature, signed } = decode(token);
    expect(header.alg).toBe("RS256");
    expect(verify("sha256", Buffer.from(signed), rsa.publicKey, Buffer.from(signature, "base64url"))).toBe(
      true,
    );
    const ed = generateKeyPairSync("ed25519");
    expect(() => signingAlgorithm(ed.privateKey)).toThrow(/a P-256 EC or an RSA key, not ed25519/);
  });
});
