/**
 * Image-build servers as children of this process, for the build tests and the builds benchmark:
 * Debian's docker-registry with htpasswd auth, MinIO (S3) and fake-gcs-server (GCS), the latter two
 * built by tools/setup/20-builds-servers.sh — started on free loopback ports, stopped by the caller.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseBlobUri } from "../../../src/builds/blob-uri.ts";
import { S3BlobStore } from "../../../src/builds/storage/s3.ts";
import {
  cachedBinary,
  ensureBucket,
  minioArgs,
  minioClientOptions,
  minioProbeUrl,
  type RegistryAuth,
  registryCommand,
  registryConfig,
  registryProbeUrl,
} from "../../../src/dev/build-servers.ts";
import { freePorts } from "../../../src/dev/ports.ts";

export interface RunningServer {
  /** host:port */
  address: string;
  dir: string;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil(
  what: string,
  child: ChildProcess,
  probe: () => Promise<boolean>,
  timeoutMs = 60_000,
) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode}`);
    if (await probe().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`${what} did not become ready within ${timeoutMs / 1000}s`);
}

async function start(
  what: string,
  command: string,
  args: string[],
  env: Record<string, string>,
  dir: string,
  probe: () => Promise<boolean>,
): Promise<ChildProcess> {
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  try {
    await waitUntil(what, child, probe);
  } catch (error) {
    child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}\n${stderr}`);
  }
  return child;
}

function stopper(child: ChildProcess, dir: string) {
  return async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      // SIGKILL after a grace period, for a server that ignores SIGTERM
      const kill = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(kill);
    }
    await rm(dir, { recursive: true, force: true });
  };
}

/**
 * docker-registry (Docker Registry HTTP API v2) over plain HTTP, with basic auth for `users` (none:
 * anonymous), on `host` (default loopback; the real node's bridge address for its pods).
 */
export async function startRegistry(
  users: Record<string, string> = {},
  token?: { realm: string; service: string; issuer: string; rootcertbundle: string },
  host = "127.0.0.1",
): Promise<RunningServer> {
  const dir = await mkdtemp(join(tmpdir(), "slipway-registry-"));
  const [port] = await freePorts(1);
  const address = `${host}:${port}`;
  const lines = Object.entries(users).map(([user, password]) =>
    execFileSync("htpasswd", ["-nbB", user, password], { encoding: "utf8" }).trim(),
  );
  const htpasswd = join(dir, "htpasswd");
  await writeFile(htpasswd, `${lines.join("\n")}\n`);
  const auth: RegistryAuth | undefined = token ? { token } : lines.length ? { htpasswd } : undefined;
  await writeFile(
    join(dir, "config.yml"),
    registryConfig({ address, dataDir: join(dir, "data"), ...(auth ? { auth } : {}) }),
  );
  const child = await start(
    "docker-registry",
    registryCommand,
    ["serve", join(dir, "config.yml")],
    {},
    dir,
    async () => {
      const response = await fetch(registryProbeUrl(address));
      return response.status === 200 || response.status === 401;
    },
  );
  return { address, dir, stop: stopper(child, dir) };
}

export interface RunningS3 extends RunningServer {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export async function startMinio(host = "127.0.0.1"): Promise<RunningS3> {
  const dir = await mkdtemp(join(tmpdir(), "slipway-minio-"));
  const [port, consolePort] = await freePorts(2);
  const address = `${host}:${port}`;
  const accessKeyId = "slipway-test";
  const secretAccessKey = `minio-${Math.random().toString(36).slice(2)}`;
  const child = await start(
    "minio",
    cachedBinary("minio"),
    minioArgs({ dataDir: join(dir, "data"), address, consoleAddress: `127.0.0.1:${consolePort}` }),
    { MINIO_ROOT_USER: accessKeyId, MINIO_ROOT_PASSWORD: secretAccessKey, MINIO_BROWSER: "off" },
    dir,
    async () => (await fetch(minioProbeUrl(address))).ok,
  );
  return {
    address,
    dir,
    endpoint: `http://${address}`,
    accessKeyId,
    secretAccessKey,
    stop: stopper(child, dir),
  };
}

export interface RunningGcs extends RunningServer {
  endpoint: string;
}

export async function startFakeGcs(): Promise<RunningGcs> {
  const dir = await mkdtemp(join(tmpdir(), "slipway-gcs-"));
  const [port] = await freePorts(1);
  const address = `127.0.0.1:${port}`;
  const child = await start(
    "fake-gcs-server",
    cachedBinary("fake-gcs-server"),
    [
      "-scheme",
      "http",
      "-host",
      "127.0.0.1",
      "-port",
      String(port),
      "-backend",
      "memory",
      "-public-host",
      address,
      "-log-level",
      "error",
    ],
    {},
    dir,
    async () => (await fetch(`http://${address}/storage/v1/b`)).ok,
  );
  return { address, dir, endpoint: `http://${address}`, stop: stopper(child, dir) };
}

export interface BuildServers {
  registry: RunningServer;
  s3: RunningS3;
  /** The bucket made for build contexts. */
  bucket: string;
  stop(): Promise<void>;
}

/** A registry with basic auth for `users` and a MinIO with `bucket` in it, both on `host`. */
export async function startBuildServers(
  users: Record<string, string>,
  bucket: string,
  host = "127.0.0.1",
): Promise<BuildServers> {
  const [registry, s3] = await Promise.all([startRegistry(users, undefined, host), startMinio(host)]);
  await ensureBucket(
    s3.endpoint,
    { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    bucket,
  );
  return { registry, s3, bucket, stop: async () => void (await Promise.all([registry.stop(), s3.stop()])) };
}

export function s3Store(servers: BuildServers): S3BlobStore {
  const { endpoint, accessKeyId, secretAccessKey } = servers.s3;
  return new S3BlobStore(minioClientOptions(endpoint, { accessKeyId, secretAccessKey }));
}

/** Uploads a build context (file name → content) under s3://<bucket>/<prefix>/ and returns its URI. */
export async function uploadContext(
  servers: BuildServers,
  prefix: string,
  files: Record<string, string>,
): Promise<string> {
  const store = s3Store(servers);
  for (const [name, content] of Object.entries(files))
    await store.upload(parseBlobUri(`s3://${servers.bucket}/${prefix}/${name}`), content);
  return `s3://${servers.bucket}/${prefix}`;
}
