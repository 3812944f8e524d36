import type { Pipeline } from "../../apis/pipelines/pipeline.ts";
import type { ControllerSpec } from "../../kube/types.ts";
import type { BackendRegistry, PipelineDefinition } from "../backend.ts";
import { ready } from "../blockers.ts";
import type { SyncedKind } from "../sync/kind.ts";
import { types } from "../types.ts";
import { versionOf } from "../version.ts";
import { providerSyncedController } from "./synced-controller.ts";

export const pipelineKind: SyncedKind<Pipeline, PipelineDefinition> = {
  type: types.pipeline,
  role: "pipeline",
  version: (pipeline) => versionOf(pipeline.spec),
  definition: (pipeline, owner) =>
    ready({ owner, name: owner.name, version: versionOf(pipeline.spec), spec: pipeline.spec }),
  objects: (backend) => backend.pipelines,
};

export const pipelineController = (deps: { backends: BackendRegistry }): ControllerSpec =>
  providerSyncedController("pipeline", pipelineKind, deps.backends);
