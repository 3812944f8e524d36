/**
 * How the image-build servers are run: Debian's docker-registry and MinIO (built by
 * tools/setup/20-builds-servers.sh). Pure renderings of their command lines and configuration,
 * shared by `slipway dev up` (detached, recorded processes) and the tests (children they stop).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cacheDir, packageRoot } from "./paths.ts";

function setupVersion(name: string): string {
  const script = readFileSync(join(packageRoot, "tools/setup/20-builds-servers.sh"), "utf8");
  const version = new RegExp(`^${name}=(\\S+)$`, "m").exec(script)?.[1];
  if (!version) throw new Error(`tools/setup/20-builds-servers.sh does not pin ${name}`);
  return version;
}

/** A binary built by tools/setup/20-builds-servers.sh, or a clear error saying to run it. */
export function cachedBinary(tool: "minio" | "fake-gcs-server"): string {
  const version = setupVersion(tool === "minio" ? "MINIO_VERSION" : "FAKE_GCS_VERSION");
  const path = join(cacheDir(), "bin", `${tool}-${version}`, tool);
  if (!existsSync(path)) throw new Error(`${path} is missing: run tools/setup/20-builds-servers.sh`);
  return path;
}

export const registryCommand = "/usr/bin/docker-registry";

export type RegistryAuth =
  | { htpasswd: string }
  | { token: { realm: string; service: string; issuer: string; rootcertbundle: string } };

/** docker-registry's config.yml: plain HTTP on `address`, filesystem storage, deletes allowed; anonymous without `auth`. */
export function registryConfig(options: { address: string; dataDir: string; auth?: RegistryAuth }): string {
  const { address, dataDir, auth } = options;
  const authBlock = !auth
    ? ""
    : "htpasswd" in auth
      ? `auth:\n  htpasswd:\n    realm: slipway\n    path: ${auth.htpasswd}\n`
      : `auth:\n  token:\n${Object.entries(auth.token)
          .map(([k, v]) => `    ${k}: ${v}\n`)
          .join("")}`;
  return `version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    rootdirectory: ${dataDir}\n  delete:\n    enabled: true\nhttp:\n  addr: ${address}\n${authBlock}`;
}

/** MinIO's command line (the root credentials come from its environment, never from here). */
export function minioArgs(options: { dataDir: string; address: string; consoleAddress: string }): string[] {
  return [
    "server",
    options.dataDir,
    "--address",
    options.address,
    "--console-address",
    options.consoleAddress,
    "--quiet",
  ];
}

/** Readiness URLs: the registry answers /v2/ with 200 (anonymous) or 401 (auth); MinIO has a ready endpoint. */
export const registryProbeUrl = (address: string) => `http://${address}/v2/`;
export const minioProbeUrl = (address: string) => `http://${address}/minio/health/ready`;

/** How an S3 client reaches a MinIO: its one region, path-style addressing. */
export function minioClientOptions(
  endpoint: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
) {
  return { endpoint, region: "us-east-1", forcePathStyle: true, credentials };
}

/** Creates `bucket` on the MinIO at `endpoint` unless it is there already. */
export async function ensureBucket(
  endpoint: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
  bucket: string,
): Promise<void> {
  // loaded on use: every CLI command imports the dev modules, few need the AWS SDK
  const { CreateBucketCommand, S3Client } = await import("@aws-sdk/client-s3");
  const s3 = new S3Client(minioClientOptions(endpoint, credentials));
  try {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (error) {
    if ((error as Error).name !== "BucketAlreadyOwnedByYou") throw error;
  } finally {
    s3.destroy();
  }
}
