/**
 * What the scale bench creates in each namespace (as a tenant would): an argo Provider, two Pipelines,
 * a RunSchedule, the ImageBuilds of images the registry already has, and the Runs. Pure: manifests only.
 */
import { ImageBuildKind } from "../../src/apis/builds/imagebuild.ts";
import { resourceTypeOf } from "../../src/apis/kind.ts";
import type { KubeObject, ResourceType } from "../../src/kube/types.ts";
import { types } from "../../src/pipelines/types.ts";

export const imageBuildType = resourceTypeOf(ImageBuildKind);
/** The kinds the bench creates and the operator (and the peer) reconcile, in the order created. */
export const scaleTypes = [types.provider, types.pipeline, types.runSchedule, imageBuildType, types.run];

export interface ScaleShape {
  pipelines: number;
  runs: number;
  builds: number;
}

/** The issue's shape (#34): per namespace a Provider, 2 Pipelines, a RunSchedule, 10 ImageBuilds, 100 Runs. */
export const issueShape: ScaleShape = { pipelines: 2, runs: 100, builds: 10 };

/** The one repository every namespace's ImageBuilds name (the operator's naming: `{project}-{name}`). */
export const imageRepository = { project: "bench", name: "model" };
export const imageVersion = (index: number) => `v${index}`;

const pipelinesGroup = "pipelines.slipway.dev/v1beta1";
const provider = "argo";
const pipelineName = (index: number) => `train-${index}`;

export interface Creation {
  type: ResourceType;
  object: KubeObject & Record<string, unknown>;
}

const namespaced = (kind: string, apiVersion: string, namespace: string, name: string, spec: object) => ({
  apiVersion,
  kind,
  metadata: { name, namespace },
  spec,
});

export function runObject(
  namespace: string,
  name: string,
  pipelineIndex: number,
  labels?: Record<string, string>,
) {
  const run = namespaced("Run", pipelinesGroup, namespace, name, {
    provider,
    pipeline: pipelineName(pipelineIndex),
    parameters: [{ name: "dataset", value: `s3://data/${name}` }],
  });
  return { ...run, metadata: { ...run.metadata, ...(labels ? { labels } : {}) } };
}

export function imageBuildObject(
  namespace: string,
  name: string,
  version: string,
  labels?: Record<string, string>,
) {
  const build = namespaced("ImageBuild", ImageBuildKind.apiVersion, namespace, name, {
    ...imageRepository,
    version,
    artifactUri: "s3://artifacts/bench/model",
  });
  return { ...build, metadata: { ...build.metadata, ...(labels ? { labels } : {}) } };
}

/** Every object of one namespace, in creation order (what a Run names exists before it). */
export function namespaceObjects(namespace: string, shape: ScaleShape): Creation[] {
  const pipelineSpec = {
    provider,
    image: "registry.example/ml/pipeline:1",
    parameters: [{ name: "dataset", default: "s3://data/default" }],
    steps: [
      { name: "prepare", args: ["--dataset={{workflow.parameters.dataset}}"] },
      { name: "train", args: ["--epochs=1"], dependsOn: ["prepare"] },
    ],
  };
  const objects: Creation[] = [
    {
      type: types.provider,
      object: namespaced("Provider", pipelinesGroup, namespace, provider, { type: "argo" }),
    },
  ];
  for (let i = 0; i < shape.pipelines; i++)
    objects.push({
      type: types.pipeline,
      object: namespaced("Pipeline", pipelinesGroup, namespace, pipelineName(i), pipelineSpec),
    });
  objects.push({
    type: types.runSchedule,
    object: namespaced("RunSchedule", pipelinesGroup, namespace, "nightly", {
      provider,
      pipeline: pipelineName(0),
      // once a year at 03:00 on 1 January: never due while the bench runs
      schedule: { cronExpression: "0 3 1 1 *" },
    }),
  });
  for (let i = 0; i < shape.builds; i++)
    objects.push({
      type: imageBuildType,
      object: imageBuildObject(namespace, `build-${i}`, imageVersion(i)),
    });
  for (let i = 0; i < shape.runs; i++)
    objects.push({
      type: types.run,
      object: runObject(namespace, `run-${i}`, i % shape.pipelines),
    });
  return objects;
}
