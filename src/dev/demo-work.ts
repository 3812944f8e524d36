/**
 * What the demo does with a platform Running on the real node: builds an image (an ImageBuild the
 * dev operator builds with buildah from a context uploaded to dev's S3) and runs a pipeline (a
 * Pipeline and Run on the platform's own Provider, executed by the platform's Argo controller on the
 * node). Each waits for its resource's outcome and returns it; a failure throws with its message.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { overrideConfigMapName, overrideKey } from "../builds/override.ts";
import { labels } from "../platform/component-objects.ts";
import { serviceName } from "../platform/names.ts";
import { workflowImages } from "../platform/workflow-images.ts";
import { type DevBuilds, uploadDevArtifact } from "./dev-builds.ts";
import { waitFor } from "./health.ts";
import { devNamespace } from "./platform-services.ts";

// biome-ignore lint/suspicious/noExplicitAny: reads of custom resources
type Any = any;

/** Polls `read` every 2 s until `done` says so (true) or fails (a string: thrown); returns the last value. */
async function until<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean | string,
  ms: number,
) {
  let last: T | undefined;
  await waitFor(
    what,
    async () => {
      last = await read().catch(() => undefined);
      const verdict = last === undefined ? false : done(last);
      if (typeof verdict === "string") throw new Error(`${what}: ${verdict}`);
      return { ok: verdict, detail: JSON.stringify((last as Any)?.status ?? {}).slice(0, 300) };
    },
    { timeoutMs: ms, intervalMs: 2000 },
  );
  return last as T;
}

function customObjects(config: KubeConfig, group: string, plural: string) {
  const api = config.makeApiClient(CustomObjectsApi);
  const version = "v1alpha1";
  return {
    // a demo run again finds what the first one made (and waits for its outcome again)
    create: (kind: string, name: string, spec: unknown) =>
      api
        .createNamespacedCustomObject({
          group,
          version,
          namespace: devNamespace,
          plural,
          body: { apiVersion: `${group}/${version}`, kind, metadata: { name }, spec },
        })
        .catch((error: { code?: number }) => {
          if (error.code !== 409) throw error;
        }),
    read: (name: string): Promise<Any> =>
      api.getNamespacedCustomObject({ group, version, namespace: devNamespace, plural, name }),
  };
}

/**
 * The dev namespace's builds override, written before the platform is installed so that the Platform
 * leaves it alone (it writes one only where none exists): empty, so builds there keep the dev
 * operator's own registry and S3 on this machine. The platform's would name its in-cluster registry,
 * which this operator (a process on the host, where Service names do not resolve) can neither check
 * nor be granted by dev's tenancy rules.
 */
export async function keepDevBuildsWiring(config: KubeConfig): Promise<void> {
  const core = config.makeApiClient(CoreV1Api);
  const name = overrideConfigMapName;
  if (await core.readNamespacedConfigMap({ namespace: devNamespace, name }).catch(() => undefined)) return;
  await core.createNamespacedConfigMap({
    namespace: devNamespace,
    body: {
      metadata: { name },
      data: {
        [overrideKey]: "# slipway dev demo: the dev operator's own registry and S3 (src/dev/demo-work.ts)\n",
      },
    },
  });
}

/** Builds `demo/model:v1` from a two-file context; returns the pushed image reference with its digest. */
export async function buildDemoImage(config: KubeConfig, builds: DevBuilds): Promise<string> {
  const context = await mkdtemp(join(tmpdir(), "slipway-demo-"));
  try {
    await writeFile(join(context, "Dockerfile"), "FROM scratch\nCOPY model.txt /model/model.txt\n");
    await writeFile(join(context, "model.txt"), "demo weights\n");
    const artifactUri = await uploadDevArtifact(builds, context, "demo/model");
    const imageBuilds = customObjects(config, "builds.slipway.dev", "imagebuilds");
    await imageBuilds.create("ImageBuild", "demo-model", {
      project: "demo",
      name: "model",
      version: "v1",
      artifactUri,
    });
    const built = await until(
      "ImageBuild demo-model",
      () => imageBuilds.read("demo-model"),
      (b) =>
        b.status?.phase === "Succeeded" || (b.status?.phase === "Failed" && (b.status?.message ?? "failed")),
      600_000,
    );
    return `${built.status?.image}@${built.status?.digest}`;
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}

/** Runs the pipeline `demo` (train → evaluate) once on the Provider `provider`; returns the Run's status. */
export async function runDemoPipeline(config: KubeConfig, provider: string, release: string): Promise<Any> {
  const image = workflowImages(release)?.step;
  if (!image) throw new Error(`release ${release} names no pipeline step image`);
  const objects = (plural: string) => customObjects(config, "pipelines.slipway.dev", plural);
  const train =
    "import os, pathlib; p = pathlib.Path('/slipway/outputs'); p.mkdir(parents=True, exist_ok=True); " +
    "(p / 'model').write_text('trained; tracking ' + os.environ.get('MLFLOW_TRACKING_URI', ''))";
  await objects("pipelines").create("Pipeline", "demo", {
    provider,
    image,
    steps: [
      { name: "train", command: ["python3", "-c", train] },
      { name: "evaluate", command: ["python3", "-c", "print('evaluated')"], dependsOn: ["train"] },
    ],
  });
  const synced = (p: Any) =>
    p.status?.state === "Succeeded" || (p.status?.state === "Failed" && p.status?.message);
  await until("Pipeline demo", () => objects("pipelines").read("demo"), synced, 120_000);
  await objects("runs").create("Run", "demo-1", {
    provider,
    pipeline: "demo",
    artifacts: [{ name: "model", path: "train:model" }],
  });
  const run = await until(
    "Run demo-1",
    () => objects("runs").read("demo-1"),
    (r) => r.status?.completionState !== undefined,
    900_000,
  );
  return run.status;
}

/** MLflow's address from this machine: its pod on the real node's bridge (the Service's name resolves only in pods). */
export async function mlflowAddress(config: KubeConfig, platform: string): Promise<string | undefined> {
  const pods = await config.makeApiClient(CoreV1Api).listNamespacedPod({
    namespace: devNamespace,
    labelSelector: `${labels.component}=${serviceName(platform, "mlflow")}`,
    fieldSelector: "status.phase=Running",
  });
  const ip = pods.items[0]?.status?.podIP;
  return ip ? `http://${ip}:5000/` : undefined;
}
