import type { Pipeline } from "../../apis/pipelines/pipeline.ts";
import type { ControllerSpec } from "../../kube/types.ts";
import type { BackendRegistry, PipelineDefinition } from "../backend.ts";
import { ready } from "../blockers.ts";
import type { SyncedKind } from "../sync/kind.ts";
import { syncReconciler } from "../sync/reconciler.ts";
import { types } from "../types.ts";
import { versionOf } from "../version.ts";
import { providerWatch } from "./indexes.ts";
import { syncedPermissions } from "./permissions.ts";

export const pipelineKind: SyncedKind<Pipeline, PipelineDefinition> = {
  type: types.pipeline,
  role: "pipeline",
  version: (pipeline) => versionOf(pipeline.spec),
  definition: (pipeline, owner) =>
    ready({ owner, name: owner.name, version: versionOf(pipeline.spec), spec: pipeline.spec }),
  objects: (backend) => backend.pipelines,
};

export function pipelineController(deps: { backends: BackendRegistry }): ControllerSpec {
  const provider = providerWatch(types.pipeline);
  return {
    name: "pipeline",
    for: types.pipeline,
    watches: [provider.watch],
    indexes: [provider.index],
    reconcile: syncReconciler(pipelineKind, deps.backends),
    permissions: syncedPermissions(types.pipeline, deps.backends, pipelineKind.role),
  };
}
