/**
 * A platform's object store from this machine, by its Service name (the caller resolves Service
 * names: src/dev/service-lookup.ts) with the platform's generated credentials, read from their
 * Secret and never printed: what `dev demo` uploads a build context with, and the real-platform
 * test too.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { secretType } from "../kube/core-types.ts";
import { resourcePath } from "../kube/keys.ts";
import { platformBuildsConfig } from "../platform/builds-wiring.ts";
import { credentialKeys, credentialSecrets } from "../platform/credentials.ts";
import { withDevClient } from "./dev-client.ts";

/** The bucket the platform creates (mlflow's init container) and its builds and pipelines use. */
export const platformBucket = "slipway";

/** The decoded values of the Secret `name` in `namespace`. */
export async function secretValues(
  config: KubeConfig,
  namespace: string,
  name: string,
): Promise<Record<string, string>> {
  const secret = await withDevClient(config, ({ rest }) =>
    rest.request<{ data?: Record<string, string> }>("GET", resourcePath(secretType, { namespace, name })),
  );
  return Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([key, value]) => [key, Buffer.from(value, "base64").toString()]),
  );
}

/** Uploads `files` under `s3://slipway/<prefix>/` of platform `platform`'s object store; returns that URI. */
export async function uploadToPlatformStore(
  config: KubeConfig,
  where: { namespace: string; platform: string },
  prefix: string,
  files: Record<string, string>,
): Promise<string> {
  const { PutObjectCommand, S3Client } = await import("@aws-sdk/client-s3");
  const keys = credentialKeys.objectStore;
  const values = await secretValues(config, where.namespace, credentialSecrets(where.platform).objectStore);
  const s3 = new S3Client({
    endpoint: platformBuildsConfig(where.platform, where.namespace).storage.s3.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: values[keys.accessKey] ?? "", secretAccessKey: values[keys.secretKey] ?? "" },
  });
  try {
    for (const [name, body] of Object.entries(files))
      await s3.send(new PutObjectCommand({ Bucket: platformBucket, Key: `${prefix}/${name}`, Body: body }));
  } finally {
    s3.destroy();
  }
  return `s3://${platformBucket}/${prefix}`;
}
