/**
 * Every image of the newest release's local image set (tools/images/) run on the real node with its
 * documented contract: what the platform's components will rely on. Skipped, with the reason in the
 * name, when the shared plane has no real node. The test process reaches pods at their IPs on the
 * node's bridge (the kubelet's probes take the same path); pods reach each other by Service name.
 */
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import {
  CoreV1Api,
  type V1Container,
  type V1EnvVar,
  type V1Pod,
  type V1Volume,
} from "@kubernetes/client-node";
import { describe, expect, inject, it } from "vitest";
import { ensureBucket, minioClientOptions } from "../../src/dev/build-servers.ts";
import { localImageReferences } from "../../src/dev/real-node/images.ts";
import { realNodePlacement } from "../../src/dev/real-node/objects.ts";
import { skipFor } from "../support/allowed-skips.ts";
import { adminConfig, eventually, testNamespace } from "../support/cluster.ts";

const run = promisify(execFile);
const skipped = inject("realNodeSkipped");
const images = localImageReferences();
const core = () => adminConfig().makeApiClient(CoreV1Api);
const secret = () => randomBytes(12).toString("hex");
const env = (values: Record<string, string>): V1EnvVar[] =>
  Object.entries(values).map(([name, value]) => ({ name, value }));

type PodSpec = Omit<V1Pod["spec"] & object, "containers"> & { containers: V1Container[] };

async function createPod(namespace: string, name: string, spec: PodSpec, labels?: Record<string, string>) {
  await core().createNamespacedPod({
    namespace,
    body: { metadata: { name, labels }, spec: { ...realNodePlacement(), ...spec } },
  });
}

const logsOf = (namespace: string, name: string) => core().readNamespacedPodLog({ namespace, name });

/** Runs one container to its end (restartPolicy Never); returns its phase and logs. */
async function runToEnd(namespace: string, name: string, container: Omit<V1Container, "name">) {
  await createPod(namespace, name, {
    restartPolicy: "Never",
    containers: [{ name, imagePullPolicy: "IfNotPresent", ...container }],
  });
  const pod = await eventually(
    `pod ${name} finished`,
    () => core().readNamespacedPod({ namespace, name }),
    (p) => p.status?.phase === "Succeeded" || p.status?.phase === "Failed",
    120_000,
  );
  return { phase: pod.status?.phase, logs: await logsOf(namespace, name) };
}

interface Server {
  container: Omit<V1Container, "name" | "ports" | "readinessProbe">;
  port: number;
  /** an HTTP path that answers 200 when the server is ready; a TCP connect otherwise */
  readyPath?: string;
  volumes?: V1Volume[];
}

/** A long-running pod behind a Service of the same name, once Ready; returns its pod IP. */
async function serve(namespace: string, name: string, server: Server): Promise<string> {
  const probe = server.readyPath
    ? { httpGet: { path: server.readyPath, port: server.port } }
    : { tcpSocket: { port: server.port } };
  await createPod(
    namespace,
    name,
    {
      containers: [
        {
          name,
          imagePullPolicy: "IfNotPresent",
          ports: [{ containerPort: server.port }],
          readinessProbe: { ...probe, periodSeconds: 1, failureThreshold: 600 },
          ...server.container,
        },
      ],
      volumes: server.volumes,
    },
    { app: name },
  );
  await core().createNamespacedService({
    namespace,
    body: { metadata: { name }, spec: { selector: { app: name }, ports: [{ port: server.port }] } },
  });
  const pod = await eventually(
    `pod ${name} Ready`,
    () => core().readNamespacedPod({ namespace, name }),
    (p) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false,
    180_000,
  );
  return pod.status?.podIP ?? "";
}

const postgres = (namespace: string, values: Record<string, string>) =>
  serve(namespace, "postgres", { container: { image: images.postgres, env: env(values) }, port: 5432 });

const minio = (namespace: string, credentials: { accessKeyId: string; secretAccessKey: string }) =>
  serve(namespace, "minio", {
    container: {
      image: images["object-store"],
      args: ["server", "/data"],
      env: env({
        MINIO_ROOT_USER: credentials.accessKeyId,
        MINIO_ROOT_PASSWORD: credentials.secretAccessKey,
      }),
    },
    port: 9000,
    readyPath: "/minio/health/ready",
  });

/** psql in a pod of the postgres image, against the postgres Service; its output and exit code */
async function psql(namespace: string, name: string, url: string, sql: string) {
  const script = `psql "$URL" -tAc "$SQL"; echo "exit=$?"`;
  return runToEnd(namespace, name, {
    image: images.postgres,
    command: ["bash", "-c", script],
    env: env({ URL: url, SQL: sql }),
  });
}

const sha256 = (data: Buffer) => `sha256:${createHash("sha256").update(data).digest("hex")}`;

/** Pushes a one-layer image by the Registry HTTP API v2; returns the first response that is not a success. */
async function pushImage(base: string, repository: string, authorization?: string) {
  const headers: Record<string, string> = authorization ? { authorization } : {};
  const upload = async (data: Buffer) => {
    const started = await fetch(`${base}/v2/${repository}/blobs/uploads/`, { method: "POST", headers });
    if (started.status !== 202) return started;
    const location = new URL(started.headers.get("location") ?? "", base);
    location.searchParams.set("digest", sha256(data));
    return fetch(location, {
      method: "PUT",
      headers: { ...headers, "content-type": "application/octet-stream" },
      body: data,
    });
  };
  const layer = randomBytes(256);
  const config = Buffer.from(
    JSON.stringify({ architecture: "amd64", os: "linux", rootfs: { type: "layers" } }),
  );
  for (const blob of [layer, config]) {
    const response = await upload(blob);
    if (response.status !== 201) return response;
  }
  const manifest = {
    schemaVersion: 2,
    mediaType: "application/vnd.docker.distribution.manifest.v2+json",
    config: {
      mediaType: "application/vnd.docker.container.image.v1+json",
      size: config.length,
      digest: sha256(config),
    },
    layers: [
      {
        mediaType: "application/vnd.docker.image.rootfs.diff.tar.gzip",
        size: layer.length,
        digest: sha256(layer),
      },
    ],
  };
  return fetch(`${base}/v2/${repository}/manifests/v1`, {
    method: "PUT",
    headers: { ...headers, "content-type": manifest.mediaType },
    body: JSON.stringify(manifest),
  });
}

describe("the local images on the real node", skipFor(skipped), () => {
  it("postgres refuses to initialise without POSTGRES_PASSWORD; with it, a login works and a wrong password is refused", {
    timeout: 400_000,
  }, async () => {
    const namespace = await testNamespace("img");
    const refused = await runToEnd(namespace, "no-password", { image: images.postgres });
    expect(refused.phase).toBe("Failed");
    expect(refused.logs).toContain("superuser password is not specified");

    const password = secret();
    await postgres(namespace, { POSTGRES_USER: "slipway", POSTGRES_PASSWORD: password });
    const right = await psql(
      namespace,
      "login",
      `postgresql://slipway:${password}@postgres:5432/slipway`,
      "select current_user || '@' || current_database() || ' ' || current_setting('server_version')",
    );
    expect(right.logs).toContain("slipway@slipway 15.20");
    expect(right.logs).toContain("exit=0");
    const wrong = await psql(
      namespace,
      "wrong",
      "postgresql://slipway:wrong@postgres:5432/slipway",
      "select 1",
    );
    expect(wrong.logs).toContain('password authentication failed for user "slipway"');
    expect(wrong.logs).toContain("exit=2");
  });

  it("MinIO takes its root credentials from MINIO_ROOT_USER/PASSWORD and refuses anonymous requests", {
    timeout: 300_000,
  }, async () => {
    const namespace = await testNamespace("img");
    const credentials = { accessKeyId: "slipway-test", secretAccessKey: secret() };
    const endpoint = `http://${await minio(namespace, credentials)}:9000`;
    await ensureBucket(endpoint, credentials, "artifacts");
    const s3 = new S3Client(minioClientOptions(endpoint, credentials));
    try {
      await s3.send(new PutObjectCommand({ Bucket: "artifacts", Key: "hello.txt", Body: "hello" }));
      const listed = await s3.send(new ListObjectsV2Command({ Bucket: "artifacts" }));
      expect(listed.Contents?.map((o) => o.Key)).toEqual(["hello.txt"]);
    } finally {
      s3.destroy();
    }
    const anonymous = await fetch(`${endpoint}/artifacts/hello.txt`);
    expect(anonymous.status).toBe(403);
    expect(await anonymous.text()).toContain("AccessDenied");
    const wrong = new S3Client(
      minioClientOptions(endpoint, { ...credentials, secretAccessKey: "wrong-secret" }),
    );
    await expect(wrong.send(new ListObjectsV2Command({ Bucket: "artifacts" }))).rejects.toThrow(/signature/i);
    wrong.destroy();
  });

  it("the registry with htpasswd auth from REGISTRY_AUTH_* refuses an anonymous push and accepts an authenticated one", {
    timeout: 300_000,
  }, async () => {
    const namespace = await testNamespace("img");
    const password = secret();
    const { stdout: htpasswd } = await run("htpasswd", ["-Bbn", "pusher", password]);
    await core().createNamespacedSecret({
      namespace,
      body: { metadata: { name: "auth" }, stringData: { htpasswd } },
    });
    const ip = await serve(namespace, "registry", {
      container: {
        image: images.registry,
        env: env({
          REGISTRY_AUTH: "htpasswd",
          REGISTRY_AUTH_HTPASSWD_REALM: "Registry Realm",
          REGISTRY_AUTH_HTPASSWD_PATH: "/auth/htpasswd",
        }),
        volumeMounts: [{ name: "auth", mountPath: "/auth", readOnly: true }],
      },
      port: 5000,
      readyPath: "/",
      volumes: [{ name: "auth", secret: { secretName: "auth" } }],
    });
    const base = `http://${ip}:5000`;
    const anonymous = await pushImage(base, "team/model");
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toContain('realm="Registry Realm"');
    const basic = `Basic ${Buffer.from(`pusher:${password}`).toString("base64")}`;
    expect((await pushImage(base, "team/model", basic)).status).toBe(201);
    const manifest = await fetch(`${base}/v2/team/model/manifests/v1`, {
      headers: { authorization: basic, accept: "application/vnd.docker.distribution.manifest.v2+json" },
    });
    expect(manifest.status).toBe(200);
    expect((await fetch(`${base}/v2/team/model/manifests/v1`)).status).toBe(401);
  });

  it("mlflow server keeps its experiments in postgres, its artifacts in S3, and answers /health", {
    timeout: 600_000,
  }, async () => {
    const namespace = await testNamespace("img");
    const password = secret();
    const credentials = { accessKeyId: "mlflow", secretAccessKey: secret() };
    const [, minioIp] = await Promise.all([
      postgres(namespace, { POSTGRES_PASSWORD: password, POSTGRES_DB: "mlflow" }),
      minio(namespace, credentials),
    ]);
    await ensureBucket(`http://${minioIp}:9000`, credentials, "mlflow");
    const database = `postgresql://postgres:${password}@postgres:5432/mlflow`;
    // the driver named: SQLAlchemy 2.1 takes postgresql:// for psycopg 3, which the image does not hold
    // (mlflow exits with "No module named 'psycopg'" and never gets Ready: this test's old time-out)
    const backendStore = database.replace(/^postgresql:/, "postgresql+psycopg2:");
    const ip = await serve(namespace, "mlflow", {
      container: {
        image: images.mlflow,
        command: [
          "mlflow",
          "server",
          "--host",
          "0.0.0.0",
          "--port",
          "5000",
          "--backend-store-uri",
          backendStore,
        ],
        args: ["--default-artifact-root", "s3://mlflow/artifacts"],
        env: env({
          MLFLOW_S3_ENDPOINT_URL: "http://minio:9000",
          AWS_ACCESS_KEY_ID: credentials.accessKeyId,
          AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
        }),
      },
      port: 5000,
      readyPath: "/health",
    });
    const base = `http://${ip}:5000`;
    expect(await (await fetch(`${base}/health`)).text()).toBe("OK");
    const created = await fetch(`${base}/api/2.0/mlflow/experiments/create`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "images-e2e" }),
    });
    expect(created.status, await created.clone().text()).toBe(200);
    const { experiment_id: id } = (await created.json()) as { experiment_id: string };
    const stored = await psql(
      namespace,
      "experiments",
      database,
      `select name || ' ' || artifact_location from experiments where experiment_id = ${Number(id)}`,
    );
    expect(stored.logs).toContain(`images-e2e s3://mlflow/artifacts/${id}`);
  });

  it("workflow-controller and argoexec are Argo Workflows v4.0.5; the step image runs python -c", {
    timeout: 300_000,
  }, async () => {
    const namespace = await testNamespace("img");
    const [controller, executor, python] = await Promise.all([
      runToEnd(namespace, "controller", { image: images["workflow-controller"], args: ["version"] }),
      runToEnd(namespace, "executor", { image: images.argoexec, args: ["version"] }),
      runToEnd(namespace, "step", {
        image: images.python,
        command: [
          "python3",
          "-c",
          "import sys, json; print(sys.version.split()[0], json.dumps({'answer': 6 * 7}))",
        ],
      }),
    ]);
    expect(controller.logs).toContain("workflow-controller: v4.0.5\n");
    expect(controller.logs).toContain("GitTag: v4.0.5");
    expect(executor.logs).toContain("argoexec: v4.0.5\n");
    expect(python).toEqual({ phase: "Succeeded", logs: '3.11.2 {"answer": 42}\n' });
  });
});
