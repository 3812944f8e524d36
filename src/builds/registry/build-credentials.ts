/**
 * Per-build registry credentials (pure): a user name that says what it grants and until when, and a
 * password that is the HMAC of that name under a key the registry's token issuer holds. Nothing is
 * stored: the operator mints one for a build Job, the issuer (src/server/registry-token/) checks the
 * HMAC and the expiry and grants what the name says — push and pull on the build's repository, pull on
 * the repositories it names after it (the build's base image), nothing else.
 *
 *   build/<expiry, unix seconds>/<repository>[+<pull-only repository>…]
 *   password = base64url(HMAC-SHA256(key, user name))
 *
 * `+` cannot occur in a repository name (the distribution grammar: lowercase letters, digits, `.`,
 * `_`, `-` and `/`), so the name parses one way only.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { BasicCredentials } from "./credentials.ts";

/** What one build's credential grants. */
export interface BuildGrant {
  /** Push and pull. */
  repository: string;
  /** Pull only (the build's base image, when it is in the same registry). */
  pull: string[];
  /** Unix seconds after which the credential is refused. */
  expiresAt: number;
}

const userPrefix = "build/";
/** A repository path as the distribution grammar has it: components of lowercase letters and digits joined by `.`, `_`, `__` or dashes. */
const repositoryPattern =
  /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*)*$/;

export function buildCredentialUser(grant: BuildGrant): string {
  for (const repository of [grant.repository, ...grant.pull])
    if (!repositoryPattern.test(repository)) throw new Error(`not a repository name: ${repository}`);
  return `${userPrefix}${Math.floor(grant.expiresAt)}/${[grant.repository, ...grant.pull].join("+")}`;
}

/** base64url of HMAC-SHA256(key, user): 43 characters. */
export function buildCredentialPassword(key: string, user: string): string {
  return createHmac("sha256", key).update(user).digest("base64url");
}

export function mintBuildCredential(key: string, grant: BuildGrant): BasicCredentials {
  const username = buildCredentialUser(grant);
  return { username, password: buildCredentialPassword(key, username) };
}

/** Whether `username` is a per-build credential's name (the issuer checks it with verifyBuildCredential). */
export function isBuildCredentialUser(username: string): boolean {
  return username.startsWith(userPrefix);
}

/** What a user name grants, if it is a well-formed per-build name. */
export function parseBuildCredentialUser(username: string): BuildGrant | undefined {
  if (!isBuildCredentialUser(username)) return undefined;
  const rest = username.slice(userPrefix.length);
  const slash = rest.indexOf("/");
  const expiry = rest.slice(0, slash);
  if (slash < 1 || !/^[0-9]{1,12}$/.test(expiry)) return undefined;
  const [repository = "", ...pull] = rest.slice(slash + 1).split("+");
  if (![repository, ...pull].every((name) => repositoryPattern.test(name))) return undefined;
  return { repository, pull, expiresAt: Number(expiry) };
}

/**
 * The grant of a per-build credential, if its password is the HMAC of its name (compared in constant
 * time) and it has not expired at `nowSeconds`; otherwise why not (for the issuer's log, never the
 * caller: the answer is a bare 401).
 */
export function verifyBuildCredential(
  key: string,
  credentials: BasicCredentials,
  nowSeconds: number,
): { grant: BuildGrant } | { refused: string } {
  const expected = Buffer.from(buildCredentialPassword(key, credentials.username));
  const given = Buffer.from(credentials.password);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { refused: "the password is not the user name's HMAC" };
  const grant = parseBuildCredentialUser(credentials.username);
  if (!grant) return { refused: "not a per-build user name" };
  if (nowSeconds >= grant.expiresAt) return { refused: `expired at ${grant.expiresAt}` };
  return { grant };
}
