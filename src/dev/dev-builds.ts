/**
 * The image-build services of `slipway dev`: a Docker registry and an S3 server (MinIO) as local
 * processes next to the operator, the artifact bucket, the S3 credentials Secret, and the builds
 * configuration file the operator reads ($SLIPWAY_BUILDS_CONFIG; the local backend, buildah).
 *
 * The registry is anonymous (no htpasswd): like every dev process it listens on 127.0.0.1 only, so
 * whoever can reach it can already read the dev directory, admin kubeconfig included; auth would add
 * a second Secret and protect nothing. The authenticated registry paths are covered by the
 * integration tests' own registry. MinIO's root keys are generated once, kept in a file of mode
 * 0600 that MinIO reads (MINIO_CONFIG_ENV_FILE), and given to the operator only as a Secret.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { stringify } from "yaml";
import { type BuildsConfig, devBuildsConfig, parseBuildsConfig } from "../builds/config.ts";
import {
  cachedBinary,
  ensureBucket,
  minioArgs,
  minioClientOptions,
  minioProbeUrl,
  registryCommand,
  registryConfig,
  registryProbeUrl,
} from "./build-servers.ts";
import { withDevClient } from "./dev-client.ts";
import type { Probe } from "./health.ts";
import { packageRoot } from "./paths.ts";
import type { ProcessRecord } from "./processes.ts";
import { realNodePlacement } from "./real-node/objects.ts";

/** The bucket `slipway dev up` creates for build artifacts. */
export const devBucket = "artifacts";
/** The Secret (in the dev namespace) with MinIO's keys as AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY. */
export const devS3Secret = "slipway-builds-s3";

export interface DevBuilds {
  /** host:port of the registry (plain HTTP). */
  registry: string;
  s3Endpoint: string;
  /** The operator's builds configuration (SLIPWAY_BUILDS_CONFIG). */
  configFile: string;
  /** MinIO's root keys (mode 0600). */
  credentialsFile: string;
}

export interface DevBuildsPorts {
  registry: number;
  s3: number;
  s3Console: number;
  /**
   * The address the registry and S3 listen on: 127.0.0.1, or with the real node its bridge's gateway
   * (src/dev/real-node/network.ts), which this machine and every pod on the node reach: team
   * namespaces build there, and the node's containerd pulls their images from it.
   */
  host?: string;
}

const buildsDir = (dir: string) => join(dir, "builds");

export function devBuilds(dir: string, ports: DevBuildsPorts): DevBuilds {
  return {
    registry: `${ports.host ?? "127.0.0.1"}:${ports.registry}`,
    s3Endpoint: `http://${ports.host ?? "127.0.0.1"}:${ports.s3}`,
    configFile: join(buildsDir(dir), "config.yaml"),
    credentialsFile: join(buildsDir(dir), "minio.env"),
  };
}

/**
 * Builds MinIO when it is missing (tools/setup/20-builds-servers.sh skips what is cached, like
 * ensureBinaries does for the control plane); docker-registry is a Debian package to install.
 */
export async function ensureBuildServers(log: (line: string) => void): Promise<void> {
  if (!existsSync(registryCommand))
    throw new Error(`${registryCommand} is missing: install the Debian package docker-registry`);
  try {
    cachedBinary("minio");
    return;
  } catch {
    log("building MinIO from the Go module proxy (first time only; takes minutes)");
  }
  await new Promise<void>((resolve, reject) => {
    // its output to stderr: `slipway dev up` prints only the kubeconfig path on stdout
    const child = spawn("bash", [join(packageRoot, "tools/setup/20-builds-servers.sh")], {
      stdio: ["ignore", 2, 2],
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`tools/setup/20-builds-servers.sh exited with code ${code}`)),
    );
  });
}

/** The registry's and MinIO's processes (pure: `up` restarts a dead one with exactly these). */
export function devBuildsProcesses(dir: string, ports: DevBuildsPorts): Omit<ProcessRecord, "pid">[] {
  const builds = devBuilds(dir, ports);
  return [
    {
      name: "docker-registry",
      command: registryCommand,
      args: ["serve", join(buildsDir(dir), "registry.yml")],
      log: join(dir, "logs", "docker-registry.log"),
    },
    {
      name: "minio",
      command: cachedBinary("minio"),
      args: minioArgs({
        dataDir: join(buildsDir(dir), "s3"),
        address: `${ports.host ?? "127.0.0.1"}:${ports.s3}`,
        consoleAddress: `127.0.0.1:${ports.s3Console}`,
      }),
      env: { MINIO_CONFIG_ENV_FILE: builds.credentialsFile, MINIO_BROWSER: "off" },
      log: join(dir, "logs", "minio.log"),
    },
  ];
}

/** Readiness of the build servers, by process name. */
export function devBuildsProbe(
  name: string,
  builds: DevBuilds,
  probeHttp: (url: string) => Promise<Probe>,
): (() => Promise<Probe>) | undefined {
  if (name === "docker-registry") return () => probeHttp(registryProbeUrl(builds.registry));
  if (name === "minio") return () => probeHttp(minioProbeUrl(builds.s3Endpoint.replace("http://", "")));
  return undefined;
}

/** Writes the registry's configuration and, the first time only, MinIO's keys. */
export async function writeDevBuildsFiles(dir: string, ports: DevBuildsPorts): Promise<void> {
  const builds = devBuilds(dir, ports);
  await mkdir(join(buildsDir(dir), "registry"), { recursive: true });
  await mkdir(join(buildsDir(dir), "s3"), { recursive: true });
  await writeFile(
    join(buildsDir(dir), "registry.yml"),
    registryConfig({ address: builds.registry, dataDir: join(buildsDir(dir), "registry") }),
  );
  const keys = `MINIO_ROOT_USER=slipway-dev\nMINIO_ROOT_PASSWORD=${randomBytes(18).toString("hex")}\n`;
  await writeFile(builds.credentialsFile, keys, { mode: 0o600, flag: "wx" }).catch((error) => {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  });
}

/** MinIO's keys, as the S3 clients name them. */
export async function devS3Credentials(
  builds: DevBuilds,
): Promise<{ accessKeyId: string; secretAccessKey: string }> {
  const text = await readFile(builds.credentialsFile, "utf8");
  const value = (name: string) => new RegExp(`^${name}=(.*)$`, "m").exec(text)?.[1] ?? "";
  return { accessKeyId: value("MINIO_ROOT_USER"), secretAccessKey: value("MINIO_ROOT_PASSWORD") };
}

/**
 * With the servers running: the bucket, the namespace and the S3 Secret in it, and the operator's
 * builds configuration file (devOperatorBuildsConfig). Idempotent.
 */
export async function provisionDevBuilds(
  dir: string,
  builds: DevBuilds,
  kubeconfig: string,
  namespace: string,
  realNode: boolean,
): Promise<void> {
  const credentials = await devS3Credentials(builds);
  await ensureBucket(builds.s3Endpoint, credentials, devBucket);
  await withDevClient(kubeconfig, async ({ kube }) => {
    await kube.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } }, { force: true });
    const secret = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: devS3Secret, namespace },
      type: "Opaque",
      stringData: {
        AWS_ACCESS_KEY_ID: credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      },
    };
    await kube.apply(secret, { force: true });
  });
  await writeFile(builds.configFile, stringify(devOperatorBuildsConfig(dir, builds, realNode)));
}

/**
 * The dev operator's builds configuration (pure): dev's registry and S3, each namespace's images
 * under its own prefix (`{namespace}/`, a release's default: teams share dev's registry), built with
 * buildah on this machine (`local`); with the real node, built by the in-cluster buildah Job backend
 * on that node instead, as an operator in a cluster builds. There dev's registry and S3 listen on the
 * node's bridge, so a build pod fetches and pushes like the host does, and the node pulls what was
 * built (registryHostsToml). A platform's builds override names its registry by Service name, which
 * a pod resolves and buildah on this machine cannot, so only the Job can push there.
 */
export function devOperatorBuildsConfig(dir: string, builds: DevBuilds, realNode: boolean): BuildsConfig {
  const config = devBuildsConfig({
    registryUrl: builds.registry,
    s3Endpoint: builds.s3Endpoint,
    s3CredentialsSecret: devS3Secret,
    storageRoot: join(buildsDir(dir), "buildah"),
  });
  const tenancy = { ...config.tenancy, repositoryPrefix: "{namespace}/" };
  if (!realNode) return parseBuildsConfig({ ...config, tenancy });
  return parseBuildsConfig({
    ...config,
    tenancy,
    backend: "buildah",
    kaniko: { ...config.kaniko, ...realNodePlacement() },
  });
}

export class EmptyArtifactError extends Error {
  override name = "EmptyArtifactError";
}

/** Every file under `localDir` (recursively) uploaded to s3://artifacts/<name>/; returns that URI, an ImageBuild's artifactUri. */
export async function uploadDevArtifact(builds: DevBuilds, localDir: string, name: string): Promise<string> {
  const [{ S3BlobStore }, { parseBlobUri }] = await Promise.all([
    import("../builds/storage/s3.ts"),
    import("../builds/blob-uri.ts"),
  ]);
  const prefix = `s3://${devBucket}/${name.replace(/^\/+|\/+$/g, "")}`;
  const store = new S3BlobStore(minioClientOptions(builds.s3Endpoint, await devS3Credentials(builds)));
  const entries = await readdir(localDir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile());
  if (files.length === 0) throw new EmptyArtifactError(`${localDir} has no files to upload`);
  for (const file of files) {
    const path = join(file.parentPath, file.name);
    await store.upload(parseBlobUri(`${prefix}/${relative(localDir, path)}`), await readFile(path));
  }
  return prefix;
}
