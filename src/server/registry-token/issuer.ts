/**
 * The token endpoint of the platform's registry (distribution's token authentication,
 * https://distribution.github.io/distribution/spec/auth/token/): `GET <realm>?service=…&scope=…`
 * with HTTP Basic credentials answers `{token, access_token, expires_in, issued_at}`, a JWT
 * (jwt.ts) granting what was asked as far as the account may (scopes.ts). Two kinds of account:
 * the platform's own user (the password of `<platform>-registry-credentials`: every right), and a
 * per-build credential (src/builds/registry/build-credentials.ts: its repository, until it expires).
 * Anything else, and no credentials at all, is a 401; a `service` other than the registry's a 400.
 * The decision is pure (the clock is an argument); route.ts serves it.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { isBuildCredentialUser, verifyBuildCredential } from "../../builds/registry/build-credentials.ts";
import type { BasicCredentials } from "../../builds/registry/credentials.ts";
import { signRegistryToken, type TokenSigner } from "./jwt.ts";
import { type Account, grantedAccess, parseScopes } from "./scopes.ts";

export interface IssuerSettings {
  /** The registry's REGISTRY_AUTH_TOKEN_ISSUER and _SERVICE: the token's `iss` and `aud`. */
  issuer: string;
  service: string;
  signer: TokenSigner;
  /** The platform's own user: every repository, the catalog. */
  platformUser: BasicCredentials;
  /** The HMAC key per-build credentials are checked with. */
  buildCredentialsKey: string;
}

/** How long a token is good for (a build's is cut to its credential's expiry). */
export const tokenLifetimeSeconds = 300;

export interface TokenRequest {
  service: string | undefined;
  scopes: readonly string[];
  /** The request's Authorization header. */
  authorization: string | undefined;
}

export interface TokenBody {
  token: string;
  access_token: string;
  expires_in: number;
  issued_at: string;
}

export type TokenAnswer =
  | { status: 200; body: TokenBody; subject: string }
  | { status: 400 | 401; message: string; reason: string };

function basicCredentials(authorization: string | undefined): BasicCredentials | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? "");
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Equal in constant time whatever the lengths (compared as digests). */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** Who the credentials are, or why they are refused (logged, never answered). */
export function authenticate(
  settings: IssuerSettings,
  credentials: BasicCredentials | undefined,
  nowSeconds: number,
): { account: Account; subject: string } | { refused: string } {
  if (!credentials) return { refused: "no Basic credentials" };
  if (isBuildCredentialUser(credentials.username)) {
    const verified = verifyBuildCredential(settings.buildCredentialsKey, credentials, nowSeconds);
    if ("refused" in verified) return verified;
    return { account: { kind: "build", grant: verified.grant }, subject: credentials.username };
  }
  const user = settings.platformUser;
  const passwordOk = sameSecret(credentials.password, user.password);
  if (credentials.username === user.username && passwordOk)
    return { account: { kind: "platform" }, subject: user.username };
  return { refused: `unknown user or wrong password for ${credentials.username}` };
}

export function answerTokenRequest(settings: IssuerSettings, request: TokenRequest, now: Date): TokenAnswer {
  if (request.service !== settings.service)
    return {
      status: 400,
      message: `unknown service ${JSON.stringify(request.service ?? "")}: this issuer serves ${settings.service}`,
      reason: "unknown service",
    };
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const who = authenticate(settings, basicCredentials(request.authorization), nowSeconds);
  if ("refused" in who)
    return {
      status: 401,
      message: "authentication required: valid registry credentials",
      reason: who.refused,
    };
  const { account, subject } = who;
  const lifetime =
    account.kind === "build"
      ? Math.min(tokenLifetimeSeconds, account.grant.expiresAt - nowSeconds)
      : tokenLifetimeSeconds;
  const token = signRegistryToken(settings.signer, {
    issuer: settings.issuer,
    service: settings.service,
    subject,
    access: grantedAccess(account, parseScopes(request.scopes)),
    issuedAt: nowSeconds,
    expiresAt: nowSeconds + lifetime,
  });
  return {
    status: 200,
    subject,
    body: { token, access_token: token, expires_in: lifetime, issued_at: now.toISOString() },
  };
}
