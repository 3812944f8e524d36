/**
 * The credentials of a Platform's services (pure): generated once per Platform into Secrets it owns
 * (the database's, the object store's, the registry's), handed to every consumer by secretKeyRef and
 * never written anywhere else (status, Events, logs, args).
 */
import type { V1Secret } from "@kubernetes/client-node";
import type { PlatformResource } from "../apis/platform/platform.ts";
import { controllerOf, ownerReference } from "../kube/owners.ts";
import { labels } from "./component-objects.ts";
import { keptFor, keptForAnnotation } from "./kept-data.ts";
import { serviceName } from "./names.ts";
import { controlledBy } from "./platform-owner.ts";

/** The user every service of the platform authenticates as (the password is what is secret). */
export const serviceUser = "slipway";

/** The names of a platform's credential Secrets. */
export const credentialSecrets = (platform: string) => ({
  /** username, password: the database's owner (postgres's POSTGRES_USER/POSTGRES_PASSWORD). */
  database: `${platform}-database-credentials`,
  /** AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: MinIO's root user, the keys the builds config names. */
  objectStore: `${platform}-object-store-credentials`,
  /**
   * kubernetes.io/dockerconfigjson of the platform's user, its username and password, and the keys of
   * the registry's token issuer (registry-token.ts): its signing key and certificate, the HMAC key of
   * per-build credentials.
   */
  registry: `${platform}-registry-credentials`,
});

export type CredentialName = keyof ReturnType<typeof credentialSecrets>;

/** Keys of the Secrets, as consumers reference them. */
export const credentialKeys = {
  database: { username: "username", password: "password" },
  objectStore: { accessKey: "AWS_ACCESS_KEY_ID", secretKey: "AWS_SECRET_ACCESS_KEY" },
  registry: {
    dockerConfig: ".dockerconfigjson",
    username: "username",
    password: "password",
    /** PKCS#8 PEM of the P-256 key that signs the registry's tokens. */
    tokenSigningKey: "token-signing-key",
    /** Its self-signed certificate (PEM): the registry's root bundle. */
    tokenCertificate: "token-certificate",
    /** The HMAC key per-build credentials are minted and checked with (src/builds/registry/build-credentials.ts). */
    buildCredentialsKey: "build-credentials-key",
  },
} as const;

/** The registry's address as pods of the cluster reach it (what builds push to). */
export const registryHost = (platform: string, namespace: string) =>
  `${serviceName(platform, "registry")}.${namespace}.svc:5000`;

export interface CredentialTools {
  /** A fresh random password (URL-safe: it is composed into connection URIs unescaped). */
  password: () => string;
  /** A fresh key to sign the registry's tokens with and its self-signed certificate (PEM). */
  tokenSigner: () => Promise<{ keyPem: string; certPem: string }>;
}

/** The data of the credential Secret `name`, freshly generated. */
export async function generateCredential(
  name: CredentialName,
  platform: string,
  namespace: string,
  tools: CredentialTools,
): Promise<{ type?: string; stringData: Record<string, string> }> {
  const password = tools.password();
  if (name === "database") return { stringData: { username: serviceUser, password } };
  if (name === "objectStore")
    return { stringData: { AWS_ACCESS_KEY_ID: serviceUser, AWS_SECRET_ACCESS_KEY: password } };
  const auth = Buffer.from(`${serviceUser}:${password}`).toString("base64");
  const dockerConfig = {
    auths: { [registryHost(platform, namespace)]: { username: serviceUser, password, auth } },
  };
  return {
    type: "kubernetes.io/dockerconfigjson",
    stringData: {
      ".dockerconfigjson": JSON.stringify(dockerConfig),
      username: serviceUser,
      password,
      ...(await missingCredentialData("registry", undefined, tools)),
    },
  };
}

/**
 * What an existing credential Secret lacks of what this release generates, freshly generated (its
 * password and everything else it has stay): the registry's issuer keys, for a Secret made before
 * token authentication. Nothing when it lacks nothing.
 */
export async function missingCredentialData(
  name: CredentialName,
  data: Record<string, string> | undefined,
  tools: CredentialTools,
): Promise<Record<string, string>> {
  if (name !== "registry") return {};
  const keys = credentialKeys.registry;
  const missing: Record<string, string> = {};
  // the key and its certificate go together: a new key needs its own certificate
  if (!data?.[keys.tokenSigningKey] || !data[keys.tokenCertificate]) {
    const signer = await tools.tokenSigner();
    missing[keys.tokenSigningKey] = signer.keyPem;
    missing[keys.tokenCertificate] = signer.certPem;
  }
  // 256 random bits, as two of the tools' passwords
  if (!data?.[keys.buildCredentialsKey])
    missing[keys.buildCredentialsKey] = tools.password() + tools.password();
  return missing;
}

/**
 * Whether a Secret that already has a credential's name may serve as `platform`'s: one it controls
 * (its controller reference has the Platform's uid), or one `uninstall --keep-data` kept for it
 * (unowned, marked with its name); any other — made by hand, another Platform's, kept for another —
 * is refused, with why: its values would be trusted as the platform's own (a password someone else
 * knows, a token key someone else holds).
 */
export function credentialAdoption(
  live: V1Secret,
  platform: PlatformResource,
): "own" | "kept" | { refused: string } {
  const name = platform.metadata.name ?? "";
  if (controlledBy(live, platform)) return "own";
  if (keptFor(live, name)) return "kept";
  const controller = controllerOf(live);
  const keptForOther = live.metadata?.annotations?.[keptForAnnotation];
  const why = controller
    ? `it is controlled by ${controller.kind} ${controller.name} (uid ${controller.uid}), not by Platform ${name} (uid ${platform.metadata.uid})`
    : keptForOther !== undefined && !live.metadata?.ownerReferences?.length
      ? `uninstall --keep-data kept it for Platform ${keptForOther}, not ${name}`
      : `Platform ${name} did not make it and uninstall --keep-data did not keep it for it (annotation ${keptForAnnotation}=${name} on an unowned Secret)`;
  return {
    refused: `Secret ${live.metadata?.name} already exists and is not this platform's credential: ${why}; delete it, or mark it ${keptForAnnotation}=${name} to have the platform use it`,
  };
}

const encoded = (data: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString("base64")]),
  );

/** The Secret `name` of `platform`, owned by it and labelled like its claims (uninstall --keep-data keeps both). */
export function credentialSecret(
  platform: PlatformResource,
  name: CredentialName,
  data: { type?: string; stringData: Record<string, string> },
): V1Secret {
  return platformSecret(platform, name, data.type, encoded(data.stringData));
}

/**
 * An existing credential Secret as `platform`'s (one `uninstall --keep-data` kept for it, or its own):
 * its type and data as they are, plus `added` (what it lacks: missingCredentialData). Applied whole: a
 * server-side apply that left out `data` would remove what Slipway applied before.
 */
export function adoptedCredentialSecret(
  platform: PlatformResource,
  name: CredentialName,
  live: V1Secret,
  added: Record<string, string> = {},
): V1Secret {
  return platformSecret(platform, name, live.type, { ...live.data, ...encoded(added) });
}

function platformSecret(
  platform: PlatformResource,
  name: CredentialName,
  type: string | undefined,
  data: Record<string, string>,
): V1Secret {
  const platformName = platform.metadata.name ?? "";
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: credentialSecrets(platformName)[name],
      namespace: platform.metadata.namespace,
      labels: { "app.kubernetes.io/part-of": "slipway", [labels.platform]: platformName },
      ownerReferences: [ownerReference(platform)],
    },
    ...(type ? { type } : {}),
    data,
  };
}
