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
import { PipelineKind } from "../../../src/apis/pipelines/pipeline.ts";
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

/** Creates and reads pipelines objects in `namespace` as the admin, at the version Slipway serves. */
function pipelinesObjects(namespace: string) {
  const objects = custom();
  const path = { group: PipelineKind.group, version: PipelineKind.version, namespace };
  return {
    create: (plural: string, kind: string, name: string, spec: unknown) =>
      objects.createNamespacedCustomObject({
        ...path,
        plural,
        body: { apiVersion: PipelineKind.apiVersion, kind, metadata: { name }, spec },
      }),
    read: (plural: string, name: string): Promise<Any> =>
      objects.getNamespacedCustomObject({ ...path, plural, name }),
  };
}

type PipelinesObjects = ReturnType<typeof pipelinesObjects>;

/** Creates the Pipeline `name` and waits until its backend has it. */
async function synchronizedPipeline(api: PipelinesObjects, name: string, spec: unknown): Promise<void> {
  await api.create("pipelines", "Pipeline", name, spec);
  await eventually(
    `Pipeline ${name} synchronized`,
    () => api.read("pipelines", name),
    (p) => p.status?.state === "Succeeded",
    120_000,
  );
}

/** Creates the Run `name` and answers it once it completed (a real run takes minutes at most). */
async function completedRun(api: PipelinesObjects, name: string, spec: unknown): Promise<Any> {
  await api.create("runs", "Run", name, spec);
  return eventually(
    `Run ${name} completed`,
    () => api.read("runs", name),
    (r) => r.status?.completionState !== undefined,
    600_000,
  );
}

/**
 * A one-step Pipeline whose step fails (exit 3) on its first two attempts and succeeds on the third:
 * the attempt number is Argo's `{{retries}}`, which its controller substitutes in a template that has
 * a retryStrategy (0 for the first attempt). Retried at most 3 times, after 2 s and then 4 s
 * (backoff factor 2). Returns the completed Run.
 */
export async function runRetriedPipeline(namespace: string, provider: string, image: string): Promise<Any> {
  const api = pipelinesObjects(namespace);
  const script =
    "import sys; attempt = int('{{retries}}'); print('attempt', attempt); sys.exit(0 if attempt >= 2 else 3)";
  await synchronizedPipeline(api, "flaky", {
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
  return completedRun(api, "flaky-1", { provider, pipeline: "flaky" });
}

/** What the data-passing pipeline's steps print and compare: the token makes each run's values its own. */
export const ioScripts = {
  prepare:
    "import sys, pathlib; rows, dataset, token = sys.argv[1:4]; pathlib.Path(rows).write_text('42'); " +
    "pathlib.Path(dataset).write_text('dataset ' + token)",
  train:
    "import sys, pathlib; rows, data, threshold, model, score, token = sys.argv[1:7]; " +
    "content = pathlib.Path(data).read_text(); print('train got', repr(rows), repr(content), repr(threshold)); " +
    "pathlib.Path(model).write_text('model of ' + rows + ' rows from ' + content); pathlib.Path(score).write_text('0.9'); " +
    "sys.exit(0 if rows == '42' and content == 'dataset ' + token and threshold == '0.75' else 4)",
  evaluate:
    "import sys, pathlib; rows, model, score, token = sys.argv[1:5]; content = pathlib.Path(model).read_text(); " +
    "print('evaluate got rows=' + rows + ' score=' + score + ' model=' + content); " +
    "sys.exit(0 if rows == '42' and score == '0.9' and content == 'model of 42 rows from dataset ' + token else 5)",
};

/**
 * A three-step Pipeline passing data only through inputs and outputs (no dependsOn: the DAG comes
 * from them): prepare writes a parameter and an artifact; train takes both and the Pipeline's
 * parameter `threshold` (0.75 from the Run), writes an artifact and a parameter; evaluate takes the
 * parameter of prepare and both outputs of train, and exits 0 only if every value arrived. Returns the
 * completed Run `io-1`.
 */
export async function runIoPipeline(
  namespace: string,
  provider: string,
  image: string,
  token: string,
): Promise<Any> {
  const api = pipelinesObjects(namespace);
  const python = (script: string) => ["python3", "-c", script];
  await synchronizedPipeline(api, "io", {
    provider,
    image,
    parameters: [{ name: "threshold", default: "0.5" }],
    steps: [
      {
        name: "evaluate",
        command: python(ioScripts.evaluate),
        args: [
          "{{inputs.parameters.rows}}",
          "{{inputs.artifacts.model.path}}",
          "{{inputs.parameters.score}}",
          token,
        ],
        inputs: {
          parameters: [
            { name: "rows", from: { step: "prepare", output: "rows" } },
            { name: "score", from: { step: "train", output: "score" } },
          ],
          artifacts: [{ name: "model", from: { step: "train", output: "model" } }],
        },
      },
      {
        name: "train",
        command: python(ioScripts.train),
        args: [
          "{{inputs.parameters.rows}}",
          "{{inputs.artifacts.data.path}}",
          "{{inputs.parameters.threshold}}",
          "{{outputs.artifacts.model.path}}",
          "{{outputs.parameters.score.path}}",
          token,
        ],
        inputs: {
          parameters: [
            { name: "rows", from: { step: "prepare", output: "rows" } },
            { name: "threshold", from: { parameter: "threshold" } },
          ],
          artifacts: [{ name: "data", from: { step: "prepare", output: "dataset" } }],
        },
        outputs: { parameters: [{ name: "score" }], artifacts: [{ name: "model" }] },
      },
      {
        name: "prepare",
        command: python(ioScripts.prepare),
        args: ["{{outputs.parameters.rows.path}}", "{{outputs.artifacts.dataset.path}}", token],
        outputs: { parameters: [{ name: "rows" }], artifacts: [{ name: "dataset" }] },
      },
    ],
  });
  return completedRun(api, "io-1", {
    provider,
    pipeline: "io",
    parameters: [{ name: "threshold", value: "0.75" }],
  });
}

/**
 * A Pipeline whose one step caches, and a Run of it named `run` (with the Run's own `caching` when
 * given), once it completed. The step prints the run's parameter and sleeps a little: a fresh
 * execution takes a pod, a reused one does not.
 */
export async function runCachedPipeline(
  namespace: string,
  provider: string,
  image: string,
  run: { name: string; caching?: { enabled: boolean } },
): Promise<Any> {
  const api = pipelinesObjects(namespace);
  if (!(await api.read("pipelines", "cached").catch(() => undefined)))
    await synchronizedPipeline(api, "cached", {
      provider,
      image,
      caching: { enabled: true, maxAge: "1h" },
      steps: [
        { name: "compute", command: ["python3", "-c", "import time; print('computed'); time.sleep(1)"] },
      ],
    });
  return completedRun(api, run.name, {
    provider,
    pipeline: "cached",
    ...(run.caching ? { caching: run.caching } : {}),
  });
}

/** The log of a pod's main container. */
export async function mainLog(namespace: string, pod: string): Promise<string> {
  return core().readNamespacedPodLog({ namespace, name: pod, container: "main" });
}

/** The Workflows Argo's cron controller started for the CronWorkflow of a RunSchedule, oldest first. */
async function scheduledWorkflows(namespace: string, cronWorkflow: string): Promise<Any[]> {
  const list = (await custom().listNamespacedCustomObject({
    group: "argoproj.io",
    version: "v1alpha1",
    namespace,
    plural: "workflows",
    labelSelector: `workflows.argoproj.io/cron-workflow=${cronWorkflow}`,
  })) as { items: Any[] };
  return list.items.sort((a, b) => Date.parse(a.status?.startedAt) - Date.parse(b.status?.startedAt));
}

/**
 * A RunSchedule every minute with concurrencyPolicy Forbid, of a Pipeline whose step runs 75 s: the
 * minute after its first run starts is due while that run still goes, so Argo's cron controller must
 * skip it, and the next run starts a minute later, after the first finished. Waits for that second
 * Workflow (at most 4 minutes: the first tick, the skipped one, the next), then removes the schedule.
 * Answers the two Workflows and the RunSchedule's CronWorkflow.
 */
export async function runForbidSchedule(
  namespace: string,
  provider: string,
  image: string,
): Promise<{ cronWorkflow: Any; workflows: Any[] }> {
  const api = pipelinesObjects(namespace);
  await synchronizedPipeline(api, "slow", {
    provider,
    image,
    steps: [{ name: "slow", command: ["python3", "-c", "import time; print('slow'); time.sleep(75)"] }],
  });
  await api.create("runschedules", "RunSchedule", "every-minute", {
    provider,
    pipeline: "slow",
    schedule: { cronExpression: "* * * * *" },
    concurrencyPolicy: "Forbid",
  });
  const [cronWorkflow] = await eventually(
    "the RunSchedule's CronWorkflow",
    async () =>
      (
        (await custom().listNamespacedCustomObject({
          group: "argoproj.io",
          version: "v1alpha1",
          namespace,
          plural: "cronworkflows",
        })) as { items: Any[] }
      ).items.filter((cron) => cron.metadata?.name?.endsWith("every-minute")),
    (crons) => crons.length === 1,
    120_000,
  );
  try {
    const workflows = await eventually(
      "a second scheduled Workflow",
      () => scheduledWorkflows(namespace, cronWorkflow.metadata.name),
      (list) => list.length >= 2 && list.every((workflow) => workflow.status?.startedAt),
      240_000,
    );
    return { cronWorkflow, workflows };
  } finally {
    await custom()
      .deleteNamespacedCustomObject({
        group: PipelineKind.group,
        version: PipelineKind.version,
        namespace,
        plural: "runschedules",
        name: "every-minute",
      })
      .catch(() => {});
  }
}
