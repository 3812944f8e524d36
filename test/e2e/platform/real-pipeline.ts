/**
 * The pipeline half of the real-platform test: the pipelines controllers in this process (only the
 * platform's namespace, completion polled every 2 s) that run the demo's Pipeline and Run
 * (src/dev/demo-work.ts) on the platform's own Provider, and reads of what Argo's controller and executor did: the Workflow, its pods, and the
 * output artifact in the platform's object store, fetched with the S3 client and the generated
 * credentials from the host (pods' addresses on the real node's bridge are reachable from it).
 */

import { gunzipSync } from "node:zlib";
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { CoreV1Api, CustomObjectsApi, type V1Pod } from "@kubernetes/client-node";
import pino from "pino";
import { Manager } from "../../../src/kube/manager.ts";
import { providerServiceAccountPolicy } from "../../../src/operator/controllers.ts";
import { backends } from "../../../src/pipelines/backends.ts";
import { pipelineControllers } from "../../../src/pipelines/controllers/index.ts";
import { credentialKeys, credentialSecrets } from "../../../src/platform/credentials.ts";
import { adminConfig, eventually } from "../../support/cluster.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

const custom = () => adminConfig().makeApiClient(CustomObjectsApi);
const core = () => adminConfig().makeApiClient(CoreV1Api);

export async function startPipelinesController(namespace: string): Promise<Manager> {
  const manager = new Manager({
    kubeConfig: adminConfig(),
    namespace,
    fieldManager: "slipway-operator",
    log: pino({ level: process.env.SLIPWAY_TEST_LOG ?? "silent" }),
  });
  for (const controller of pipelineControllers({
    backends,
    run: { completionPollSeconds: 2 },
    // as the operator does: the Platform's own Provider may name the platform's pipelines account
    serviceAccounts: providerServiceAccountPolicy([]),
  }))
    manager.add(controller);
  await manager.start();
  return manager;
}

export function readWorkflow(namespace: string, name: string): Promise<Any> {
  return custom().getNamespacedCustomObject({
    group: "argoproj.io",
    version: "v1alpha1",
    namespace,
    plural: "workflows",
    name,
  });
}

export async function workflowPods(namespace: string, workflow: string): Promise<V1Pod[]> {
  const selector = `workflows.argoproj.io/workflow=${workflow}`;
  return (await core().listNamespacedPod({ namespace, labelSelector: selector })).items;
}

/** The object at `s3://bucket/key`, read from the platform's object store with its generated credentials. */
export async function readPlatformObject(namespace: string, location: string): Promise<Buffer> {
  const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(location);
  if (!match) throw new Error(`not an s3:// location: ${location}`);
  const secret = await core().readNamespacedSecret({
    namespace,
    name: credentialSecrets("slipway").objectStore,
  });
  const value = (key: string) => Buffer.from(secret.data?.[key] ?? "", "base64").toString();
  const [store] = (
    await core().listNamespacedPod({
      namespace,
      labelSelector: "app.kubernetes.io/name=object-store",
      fieldSelector: "status.phase=Running",
    })
  ).items;
  const s3 = new S3Client({
    endpoint: `http://${store?.status?.podIP}:9000`,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: {
      accessKeyId: value(credentialKeys.objectStore.accessKey),
      secretAccessKey: value(credentialKeys.objectStore.secretKey),
    },
  });
  try {
    const object = await s3.send(new GetObjectCommand({ Bucket: match[1], Key: match[2] }));
    const bytes = Buffer.from((await object.Body?.transformToByteArray()) ?? []);
    return bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes;
  } finally {
    s3.destroy();
  }
}

/**
 * A one-step Pipeline whose step fails (exit 3) on its first two attempts and succeeds on the third:
 * the attempt number is Argo's `{{retries}}`, which its controller substitutes in a template that has
 * a retryStrategy (0 for the first attempt). Retried at most 3 times, after 2 s and then 4 s
 * (backoff factor 2). Returns the completed Run.
 */
export async function runRetriedPipeline(namespace: string, provider: string, image: string): Promise<Any> {
  const objects = custom();
  const create = (plural: string, kind: string, name: string, spec: unknown) =>
    objects.createNamespacedCustomObject({
      group: "pipelines.slipway.dev",
      version: "v1beta1",
      namespace,
      plural,
      body: { apiVersion: "pipelines.slipway.dev/v1beta1", kind, metadata: { name }, spec },
    });
  const read = (plural: string, name: string): Promise<Any> =>
    objects.getNamespacedCustomObject({
      group: "pipelines.slipway.dev",
      version: "v1beta1",
      namespace,
      plural,
      name,
    });
  const script =
    "import sys; attempt = int('{{retries}}'); print('attempt', attempt); sys.exit(0 if attempt >= 2 else 3)";
  await create("pipelines", "Pipeline", "flaky", {
    provider,
    image,
    steps: [
      {
        name: "flaky",
        command: ["python3", "-c", script],
        retry: { limit: 3, policy: "OnFailure", backoff: { duration: "2s", factor: 2 } },
      },
    ],
  });
  await eventually(
    "Pipeline flaky synchronized",
    () => read("pipelines", "flaky"),
    (p) => p.status?.state === "Succeeded",
    120_000,
  );
  await create("runs", "Run", "flaky-1", { provider, pipeline: "flaky" });
  return eventually(
    "Run flaky-1 completed",
    () => read("runs", "flaky-1"),
    (r) => r.status?.completionState !== undefined,
    600_000,
  );
}
