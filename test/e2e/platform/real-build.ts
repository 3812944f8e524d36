/**
 * The build half of the real-platform test: the image-build controller in this process as the
 * operator runs it (the Platform vouches for its namespace's override; the buildah Job backend on the
 * real node), with the platform's Service names resolved as the dev operator resolves them
 * (src/dev/service-lookup.ts); and reads of the platform's registry and object store through those
 * names with its generated credentials.
 */
import { Writable } from "node:stream";
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { CoreV1Api } from "@kubernetes/client-node";
import pino from "pino";
import { inject } from "vitest";
import { parseBuildsConfig } from "../../../src/builds/config.ts";
import { imageBuildController } from "../../../src/builds/controller.ts";
import { RegistryClient } from "../../../src/builds/registry/client.ts";
import { realNodePlacement } from "../../../src/dev/real-node/objects.ts";
import { installServiceLookup } from "../../../src/dev/service-lookup.ts";
import { Manager } from "../../../src/kube/manager.ts";
import { platformBuildsConfig, platformBuildsVoucher } from "../../../src/platform/builds-wiring.ts";
import { credentialKeys, credentialSecrets } from "../../../src/platform/credentials.ts";
import { adminConfig } from "../../support/cluster.ts";

const core = () => adminConfig().makeApiClient(CoreV1Api);

async function secretValues(namespace: string, name: string): Promise<Record<string, string>> {
  const secret = await core().readNamespacedSecret({ namespace, name });
  return Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([key, value]) => [key, Buffer.from(value, "base64").toString()]),
  );
}

/**
 * The operator's builds configuration has nothing of the platform: a registry elsewhere, no storage,
 * no tenancy grant. Only the Platform's override (which it vouches for) sends builds to the platform.
 */
export async function startPlatformBuilds(namespace: string) {
  const undoLookup = installServiceLookup(inject("kubeconfig"));
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(...chunk.toString().split("\n").filter(Boolean));
      done();
    },
  });
  const config = parseBuildsConfig({
    backend: "buildah",
    registry: { url: "registry.invalid" },
    kaniko: { ...realNodePlacement() },
  });
  const manager = new Manager({
    kubeConfig: adminConfig(),
    namespace,
    fieldManager: "slipway-operator",
    log: pino({ level: "debug" }, sink),
  });
  manager.add(imageBuildController({ config, overrideVoucher: platformBuildsVoucher }));
  await manager.start();
  return {
    logs,
    stop: async () => {
      await manager.stop();
      undoLookup();
    },
  };
}

/** Uploads `files` under `s3://slipway/<prefix>/` of the platform's object store (by its Service name); returns that URI. */
export async function uploadToPlatformStore(
  namespace: string,
  prefix: string,
  files: Record<string, string>,
): Promise<string> {
  const keys = credentialKeys.objectStore;
  const values = await secretValues(namespace, credentialSecrets("slipway").objectStore);
  const s3 = new S3Client({
    endpoint: platformBuildsConfig("slipway", namespace).storage.s3.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: values[keys.accessKey] ?? "", secretAccessKey: values[keys.secretKey] ?? "" },
  });
  try {
    for (const [name, body] of Object.entries(files))
      await s3.send(new PutObjectCommand({ Bucket: "slipway", Key: `${prefix}/${name}`, Body: body }));
  } finally {
    s3.destroy();
  }
  return `s3://slipway/${prefix}`;
}

/** A client of the platform's registry (by its Service name) with the generated credentials. */
export async function platformRegistry(
  namespace: string,
): Promise<{ client: RegistryClient; password: string }> {
  const values = await secretValues(namespace, credentialSecrets("slipway").registry);
  const client = new RegistryClient({
    registry: platformBuildsConfig("slipway", namespace).registry.url,
    insecure: true,
    credentials: async () => ({ username: values.username ?? "", password: values.password ?? "" }),
  });
  return { client, password: values.password ?? "" };
}
