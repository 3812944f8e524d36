/**
 * What the demo does with a platform Running on the real node: builds an image (a context uploaded
 * to the platform's object store, an ImageBuild in its namespace that the platform's builds
 * override sends to its registry) and runs a pipeline (a Pipeline and Run on the platform's own
 * Provider, executed by the platform's Argo controller on the node). Each waits for its resource's
 * outcome and returns it; a failure throws with its message. The real-platform e2e test runs these
 * same steps (test/e2e/platform/real-platform.test.ts), so they cannot rot unnoticed.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { ImageBuildKind } from "../apis/builds/imagebuild.ts";
import { type Kind, resourceTypeOf } from "../apis/kind.ts";
import { PipelineKind } from "../apis/pipelines/pipeline.ts";
import { RunKind } from "../apis/pipelines/run.ts";
import { podType } from "../kube/core-types.ts";
import { resourcePath } from "../kube/keys.ts";
import type { RestClient } from "../kube/rest.ts";
import { labels } from "../platform/component-objects.ts";
import { serviceName } from "../platform/names.ts";
import { workflowImages } from "../platform/workflow-images.ts";
import { ignoreConflict, withDevClient } from "./dev-client.ts";
import { waitFor } from "./health.ts";
import { uploadToPlatformStore } from "./platform-store.ts";

// biome-ignore lint/suspicious/noExplicitAny: reads of custom resources
type Any = any;

/** Where the demo's work goes: the platform's namespace and name (its Provider has the platform's name). */
export interface DemoTarget {
  namespace: string;
  platform: string;
}

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

function customObjects(rest: RestClient, namespace: string, kind: Kind) {
  const path = (name?: string) => resourcePath(resourceTypeOf(kind), { namespace, name });
  return {
    // a demo run again finds what the first one made (and waits for its outcome again)
    create: (name: string, spec: unknown) =>
      ignoreConflict(
        rest.request("POST", path(), {
          body: { apiVersion: kind.apiVersion, kind: kind.kind, metadata: { name }, spec },
        }),
      ),
    read: (name: string): Promise<Any> => rest.request("GET", path(name)),
  };
}

/** The demo's build context: a model file copied into an image from scratch. */
export const demoContext = {
  Dockerfile: "FROM scratch\nCOPY model.txt /model/model.txt\n",
  "model.txt": "demo weights\n",
};

/**
 * Builds `demo/model:v1` (ImageBuild `demo-model`) from demoContext uploaded to the platform's object
 * store by its Service name (the caller resolves those: service-lookup.ts); returns the ImageBuild
 * once Succeeded. No builds configuration names the platform: its override does.
 */
export async function buildDemoImage(config: KubeConfig, target: DemoTarget): Promise<Any> {
  const artifactUri = await uploadToPlatformStore(config, target, "demo/model", demoContext);
  return withDevClient(config, async ({ rest }) => {
    const imageBuilds = customObjects(rest, target.namespace, ImageBuildKind);
    await imageBuilds.create("demo-model", { project: "demo", name: "model", version: "v1", artifactUri });
    return until(
      "ImageBuild demo-model",
      () => imageBuilds.read("demo-model"),
      (b) =>
        b.status?.phase === "Succeeded" || (b.status?.phase === "Failed" && (b.status?.message ?? "failed")),
      600_000,
    );
  });
}

/** The step `train` writes its output artifact `model` with the tracking URI Argo gave it. */
const trainScript =
  "import os, pathlib; p = pathlib.Path('/slipway/outputs'); p.mkdir(parents=True, exist_ok=True); " +
  "(p / 'model').write_text('trained; tracking ' + os.environ.get('MLFLOW_TRACKING_URI', ''))";

/** Runs the pipeline `demo` (train → evaluate) once (Run `demo-1`) on the platform's Provider; returns the Run. */
export async function runDemoPipeline(config: KubeConfig, target: DemoTarget, release: string): Promise<Any> {
  const image = workflowImages(release)?.step;
  if (!image) throw new Error(`release ${release} names no pipeline step image`);
  const provider = target.platform;
  return withDevClient(config, async ({ rest }) => {
    const pipelines = customObjects(rest, target.namespace, PipelineKind);
    const runs = customObjects(rest, target.namespace, RunKind);
    await pipelines.create("demo", {
      provider,
      image,
      steps: [
        { name: "train", command: ["python3", "-c", trainScript] },
        { name: "evaluate", command: ["python3", "-c", "print('evaluated')"], dependsOn: ["train"] },
      ],
    });
    const synced = (p: Any) =>
      p.status?.state === "Succeeded" || (p.status?.state === "Failed" && p.status?.message);
    await until("Pipeline demo", () => pipelines.read("demo"), synced, 120_000);
    await runs.create("demo-1", {
      provider,
      pipeline: "demo",
      artifacts: [{ name: "model", path: "train:model" }],
    });
    return until(
      "Run demo-1",
      () => runs.read("demo-1"),
      (r) => r.status?.completionState !== undefined,
      900_000,
    );
  });
}

/** MLflow's address from this machine: its pod on the real node's bridge (the Service's name resolves only in pods). */
export async function mlflowAddress(config: KubeConfig, target: DemoTarget): Promise<string | undefined> {
  const pods = await withDevClient(config, ({ rest }) =>
    rest.request<{ items: { status?: { podIP?: string } }[] }>(
      "GET",
      resourcePath(podType, { namespace: target.namespace }),
      {
        query: {
          labelSelector: `${labels.component}=${serviceName(target.platform, "mlflow")}`,
          fieldSelector: "status.phase=Running",
        },
      },
    ),
  );
  const ip = pods.items[0]?.status?.podIP;
  return ip ? `http://${ip}:5000/` : undefined;
}
