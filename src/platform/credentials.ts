/**
 * The credentials of a Platform's services (pure): generated once per Platform into Secrets it owns
 * (the database's, the object store's, the registry's), handed to every consumer by secretKeyRef and
 * never written anywhere else (status, Events, logs, args).
 */
import type { V1Secret } from "@kubernetes/client-node";
import type { PlatformResource } from "../apis/platform/platform.ts";
import { ownerReference } from "../kube/owners.ts";
import { labels } from "./component-objects.ts";
import { serviceName } from "./names.ts";

/** The user every service of the platform authenticates as (the password is what is secret). */
export const serviceUser = "slipway";

/** The names of a platform's credential Secrets. */
export const credentialSecrets = (platform: string) => ({
  /** username, password: the database's owner (postgres's POSTGRES_USER/POSTGRES_PASSWORD). */
  database: `${platform}-database-credentials`,
  /** AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: MinIO's root user, the keys the builds config names. */
  objectStore: `${platform}-object-store-credentials`,
  /** kubernetes.io/dockerconfigjson for pushes, plus the registry's htpasswd file, username, password. */
  registry: `${platform}-registry-credentials`,
});

export type CredentialName = keyof ReturnType<typeof credentialSecrets>;

/** Keys of the Secrets, as consumers reference them. */
export const credentialKeys = {
  database: { username: "username", password: "password" },
  objectStore: { accessKey: "AWS_ACCESS_KEY_ID", secretKey: "AWS_SECRET_ACCESS_KEY" },
  registry: {
    htpasswd: "htpasswd",
    dockerConfig: ".dockerconfigjson",
    username: "username",
    password: "password",
  },
} as const;

/** The registry's address as pods of the cluster reach it (what builds push to). */
export const registryHost = (platform: string, namespace: string) =>
  `${serviceName(platform, "registry")}.${namespace}.svc:5000`;

export interface CredentialTools {
  /** A fresh random password (URL-safe: it is composed into connection URIs unescaped). */
  password: () => string;
  /** A bcrypt hash of `password` (the only scheme the registry's htpasswd accepts). */
  bcrypt: (password: string) => string;
}

/** The data of the credential Secret `name`, freshly generated. */
export function generateCredential(
  name: CredentialName,
  platform: string,
  namespace: string,
  tools: CredentialTools,
): { type?: string; stringData: Record<string, string> } {
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
      htpasswd: `${serviceUser}:${tools.bcrypt(password)}\n`,
      username: serviceUser,
      password,
    },
  };
}

/** The Secret `name` of `platform`, owned by it and labelled like its claims (uninstall --keep-data keeps both). */
export function credentialSecret(
  platform: PlatformResource,
  name: CredentialName,
  data: { type?: string; stringData: Record<string, string> },
): V1Secret {
  const encoded = Object.entries(data.stringData).map(([key, value]) => [
    key,
    Buffer.from(value).toString("base64"),
  ]);
  return platformSecret(platform, name, data.type, Object.fromEntries(encoded));
}

/**
 * A credential Secret `uninstall --keep-data` kept, as `platform`'s again: its type and data as they
 * are (applied whole: a server-side apply that left out `data` would remove what Slipway applied before).
 */
export function keptCredentialSecret(
  platform: PlatformResource,
  name: CredentialName,
  kept: V1Secret,
): V1Secret {
  return platformSecret(platform, name, kept.type, kept.data ?? {});
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
