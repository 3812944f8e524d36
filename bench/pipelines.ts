import type { KubeConfig } from "@kubernetes/client-node";
import { crdManifest } from "../src/apis/crd.ts";
import { pipelineKinds } from "../src/apis/pipelines/index.ts";
import { Api, installArgoCrds, startPipelinesOperator } from "../src/dev/pipelines-operator.ts";
import { resourcePath } from "../src/kube/keys.ts";
import { argoName } from "../src/pipelines/argo/names.ts";
import { workflow } from "../src/pipelines/argo/workflow.ts";
import { backends } from "../src/pipelines/backends.ts";
import { runController } from "../src/pipelines/controllers/run.ts";
import { providerConfig } from "../src/pipelines/sync/reconciler.ts";
import { statusOf } from "../src/pipelines/sync/status.ts";
import { types } from "../src/pipelines/types.ts";
import { versionOf } from "../src/pipelines/version.ts";
import type { BenchFigures } from "./run.ts";
import { benchControlPlane, pool, sleep, until } from "./support.ts";

const runs = 1_000;
const namespaceType = {
  group: "",
  version: "v1",
  kind: "Namespace",
  plural: "namespaces",
  namespaced: false,
};
const concurrency = runController({ backends }).concurrency ?? 4;
const group = "pipelines.slipway.dev/v1alpha1";

const pipelineSpec = {
  provider: "argo",
  image: "registry.example/ml/pipeline:1",
  parameters: [{ name: "dataset", default: "s3://data/default" }],
  steps: [
    { name: "prepare", args: ["--dataset={{workflow.parameters.dataset}}"] },
    { name: "train", args: ["--epochs=1"], dependsOn: ["prepare"] },
    { name: "evaluate", dependsOn: ["train"] },
  ],
};

const runSpec = (i: number) => ({
  provider: "argo",
  pipeline: "train",
  parameters: [{ name: "dataset", value: `s3://data/${i}` }],
});

/** Counts Runs reaching Synchronized=Succeeded through one watch (no polling load on the API server). */
function countSynchronized(api: Api, namespace: string): { done: Promise<void>; stop: () => void } {
  const abort = new AbortController();
  const synced = new Set<string>();
  let resolve!: () => void;
  const done = new Promise<void>((r) => {
    resolve = r;
  });
  api.rest
    .watch(
      resourcePath(types.run, { namespace }),
      {},
      (event) => {
        const object = event.object as { metadata?: { name?: string }; status?: { state?: string } };
        if (object.status?.state === "Succeeded" && object.metadata?.name?.startsWith("op-")) {
          synced.add(object.metadata.name);
          if (synced.size === runs) resolve();
        }
      },
      abort.signal,
    )
    .catch(() => {});
  return { done, stop: () => abort.abort() };
}

/** The kinds' CRDs, Argo's, a namespace with a Provider and a synchronized Pipeline `train` (untimed). */
async function setUp(api: Api, config: KubeConfig, namespace: string): Promise<void> {
  for (const kind of pipelineKinds) await api.apply(types.crd, crdManifest(kind) as never);
  await installArgoCrds(api);
  await sleep(2_000); // CRDs served
  await api.create(namespaceType, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  await api.create(types.provider, {
    apiVersion: group,
    kind: "Provider",
    metadata: { name: "argo", namespace },
    spec: { type: "argo" },
  });
  await api.create(types.pipeline, {
    apiVersion: group,
    kind: "Pipeline",
    metadata: { name: "train", namespace },
    spec: pipelineSpec,
  });
  const setup = await startPipelinesOperator(config);
  await until(
    "the Pipeline synchronized",
    async () => {
      const pipeline = await api.get<{ status?: { state?: string } }>(types.pipeline, namespace, "train");
      return pipeline?.status?.state === "Succeeded";
    },
    { timeoutMs: 600_000, pollMs: 250 },
  );
  await setup.stop();
}

const createRuns = (api: Api, namespace: string, names: string[]) =>
  pool(names, 16, (name) =>
    api.create(types.run, {
      apiVersion: group,
      kind: "Run",
      metadata: { name, namespace },
      spec: runSpec(Number(name.split("-")[1])),
    }),
  );

/** Seconds for the operator, started with 1,000 Runs waiting (created untimed), to synchronize them all. */
async function timeOperator(api: Api, config: KubeConfig, namespace: string): Promise<number> {
  await createRuns(
    api,
    namespace,
    Array.from({ length: runs }, (_, i) => `op-${i}`),
  );
  const counter = countSynchronized(api, namespace);
  const started = performance.now();
  const operator = await startPipelinesOperator(config);
  await counter.done;
  const seconds = (performance.now() - started) / 1000;
  counter.stop();
  await operator.stop();
  return seconds;
}

/**
 * Seconds for the floor, with the operator stopped: the same Workflows (built by the same pure
 * function) and one status write per Run, by a plain client at the same concurrency.
 */
async function timeFloor(api: Api, namespace: string): Promise<number> {
  const floorRuns = Array.from({ length: runs }, (_, i) => `floor-${i}`);
  await createRuns(api, namespace, floorRuns);
  const provider = await api.get<never>(types.provider, namespace, "argo");
  const pipeline = await api.get<{ spec: typeof pipelineSpec }>(types.pipeline, namespace, "train");
  if (!provider || !pipeline) throw new Error("setup objects missing");
  const providerSettings = providerConfig(provider);
  const version = versionOf(pipeline.spec);
  const pipelineOwner = { object: pipeline as never, kind: "Pipeline", namespace, name: "train" };
  const floorStarted = performance.now();
  await pool(floorRuns, concurrency, async (name) => {
    const owner = { object: {}, kind: "Run", namespace, name };
    const id = argoName(owner);
    const runVersion = versionOf(runSpec(Number(name.split("-")[1])));
    const run = {
      owner,
      pipeline: { owner: pipelineOwner, name: "train", version, spec: pipeline.spec as never },
      parameters: runSpec(Number(name.split("-")[1])).parameters,
      artifacts: [],
    };
    await api.create(types.workflow, workflow(id, run, providerSettings) as never);
    await api.apply(
      types.run,
      {
        apiVersion: group,
        kind: "Run",
        metadata: { name, namespace },
        // the same status the operator writes
        status: statusOf(
          {
            state: "Succeeded",
            provider: `${namespace}/argo`,
            id,
            version: runVersion,
            providerVersion: providerSettings.version,
            failedAttempts: 0,
            observedGeneration: 1,
          },
          undefined,
          { message: `created in provider ${namespace}/argo as ${id} (version ${runVersion})` },
          undefined,
          new Date(),
        ),
      } as never,
      "status",
    );
  });
  const floorSeconds = (performance.now() - floorStarted) / 1000;
  return floorSeconds;
}

export default async function bench(): Promise<BenchFigures> {
  const plane = await benchControlPlane("pipelines", 1);
  const config = plane.kubeConfig;
  const external = process.env.SLIPWAY_BENCH_KUBECONFIG !== undefined;
  const api = new Api(config);
  const namespace = `bench-pipelines-${Date.now().toString(36)}`;
  try {
    await setUp(api, config, namespace);
    const seconds = await timeOperator(api, config, namespace);
    const floorSeconds = await timeFloor(api, namespace);
    const workflows = (await api.list(types.workflow, namespace)).length;
    return {
      seconds: Number(seconds.toFixed(2)),
      floor_seconds: Number(floorSeconds.toFixed(2)),
      runs,
      concurrency,
      workflows,
      control_plane: external ? "external" : "private",
    };
  } finally {
    if (external) await api.delete(namespaceType, "", namespace).catch(() => {});
    api.close();
    await plane.stop();
  }
}
