/**
 * The registry's Bearer token: a JWT as distribution v2.8.2 verifies it (registry/auth/token/token.go):
 * `iss` one of its trusted issuers (REGISTRY_AUTH_TOKEN_ISSUER), `aud` a single string equal to its
 * service (REGISTRY_AUTH_TOKEN_SERVICE: its ClaimSet reads `aud` as a string, so an array would be a
 * malformed token), `exp` and `nbf` checked with 60 s of leeway, `access` the resource actions. The
 * signing key is found from the header's `x5c` first: the chain is verified against the root bundle
 * (REGISTRY_AUTH_TOKEN_ROOTCERTBUNDLE), so the self-signed certificate in that bundle is its own
 * chain; then libtrust verifies the signature with `alg` (ES256 for a P-256 key: r‖s, 64 bytes, as
 * JWS has it; RS256 for an RSA key). Signed with node:crypto.
 */
import { type KeyObject, randomUUID, sign, X509Certificate } from "node:crypto";
import type { ResourceActions } from "./scopes.ts";

export interface TokenSigner {
  key: KeyObject;
  /** The certificate of `key`'s public half, as the registry's root bundle holds it (PEM). */
  certificatePem: string;
}

export interface TokenClaims {
  issuer: string;
  service: string;
  subject: string;
  access: ResourceActions[];
  /** Unix seconds. */
  issuedAt: number;
  expiresAt: number;
}

const b64url = (data: string | Buffer) => Buffer.from(data).toString("base64url");

/** The JWS algorithm of a signing key: ES256 (P-256) or RS256 (RSA); any other key is refused. */
export function signingAlgorithm(key: KeyObject): "ES256" | "RS256" {
  if (key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1") return "ES256";
  if (key.asymmetricKeyType === "rsa") return "RS256";
  throw new Error(
    `registry token signing key: a P-256 EC or an RSA key, not ${key.asymmetricKeyType ?? key.type}`,
  );
}

export function signRegistryToken(signer: TokenSigner, claims: TokenClaims): string {
  const alg = signingAlgorithm(signer.key);
  const certificate = new X509Certificate(signer.certificatePem).raw.toString("base64");
  const header = b64url(JSON.stringify({ typ: "JWT", alg, x5c: [certificate] }));
  const payload = b64url(
    JSON.stringify({
      iss: claims.issuer,
      sub: claims.subject,
      aud: claims.service,
      exp: claims.expiresAt,
      nbf: claims.issuedAt,
      iat: claims.issuedAt,
      jti: randomUUID(),
      access: claims.access,
    }),
  );
  const input = Buffer.from(`${header}.${payload}`);
  const signature =
    alg === "ES256"
      ? sign("sha256", input, { key: signer.key, dsaEncoding: "ieee-p1363" })
      : sign("sha256", input, signer.key);
  return `${header}.${payload}.${b64url(signature)}`;
}
