/** Registry credentials from Kubernetes Secrets: dockerconfigjson, or a Google service-account key. */
import { onFirstUse } from "../../lib/on-first-use.ts";

export interface BasicCredentials {
  username: string;
  password: string;
}

export class CredentialsError extends Error {
  override name = "CredentialsError";
}

const dockerHubKeys = ["https://index.docker.io/v1/", "index.docker.io", "docker.io", "registry-1.docker.io"];

function hostOf(key: string): string {
  return key.replace(/^[a-z]+:\/\//, "").replace(/\/.*$/, "");
}

/**
 * The credentials for `registry` in a `.dockerconfigjson` document. Keys may carry a scheme and a
 * path (`https://index.docker.io/v1/`); Docker Hub's several host names are one registry.
 */
export function credentialsFromDockerConfig(
  dockerConfigJson: string,
  registry: string,
): BasicCredentials | undefined {
  let parsed: { auths?: Record<string, { auth?: string; username?: string; password?: string }> };
  try {
    parsed = JSON.parse(dockerConfigJson);
  } catch {
    throw new CredentialsError("registry credentials Secret: .dockerconfigjson is not valid JSON");
  }
  const auths = parsed.auths ?? {};
  const wanted = dockerHubKeys.includes(registry) ? dockerHubKeys.map(hostOf) : [registry];
  const key = Object.keys(auths).find((k) => wanted.includes(hostOf(k)));
  const entry = key ? auths[key] : undefined;
  if (!entry) return undefined;
  if (entry.username !== undefined && entry.password !== undefined) {
    return { username: entry.username, password: entry.password };
  }
  if (entry.auth) {
    const decoded = Buffer.from(entry.auth, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0)
      throw new CredentialsError(`registry credentials Secret: the auth of ${key} is not user:password`);
    return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  return undefined;
}

/** A `.dockerconfigjson` document for one registry (what the local backend hands to buildah). */
export function dockerConfigFor(registry: string, credentials: BasicCredentials): string {
  const auth = Buffer.from(`${credentials.username}:${credentials.password}`).toString("base64");
  return JSON.stringify({ auths: { [registry]: { auth } } });
}

/** google-auth-library (+19 MB resident), loaded by the first Google registry's credentials. */
const googleAuthLibrary = onFirstUse(() => import("google-auth-library"));

/**
 * Google Artifact Registry / Container Registry: an OAuth2 access token of the service account is the
 * password of user `oauth2accesstoken`. google-auth-library caches and refreshes the token.
 */
export function googleCredentials(serviceAccountKeyJson: string): () => Promise<BasicCredentials> {
  let key: Record<string, unknown>;
  try {
    key = JSON.parse(serviceAccountKeyJson);
  } catch {
    throw new CredentialsError(
      "registry credentials Secret: key.json is not a service-account key (invalid JSON)",
    );
  }
  const auth = onFirstUse(async () => {
    const { GoogleAuth } = await googleAuthLibrary();
    return new GoogleAuth({ credentials: key, scopes: ["https://www.googleapis.com/auth/cloud-platform"] });
  });
  return async () => {
    const token = await (await auth()).getAccessToken();
    if (!token)
      throw new CredentialsError("Google returned no access token for the registry service account");
    return { username: "oauth2accesstoken", password: token };
  };
}
