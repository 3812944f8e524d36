import type { Pipeline } from "../../apis/pipelines/pipeline.ts";
import type { ControllerSpec } from "../../kube/types.ts";
import type { PipelineDefinition } from "../backend.ts";
import { type SyncedKind, syncReconciler } from "../sync/reconciler.ts";
import { pipelineType, workflowTemplateType } from "../types.ts";
import { versionOf } from "../version.ts";
import { providerWatch } from "./indexes.ts";
import { syncedPermissions } from "./permissions.ts";

export const pipelineKind: SyncedKind<Pipeline, PipelineDefinition> = {
  type: pipelineType,
  version: (pipeline) => versionOf(pipeline.spec),
  definition: (pipeline, owner) => ({
    owner,
    name: owner.name,
    version: versionOf(pipeline.spec),
    spec: pipeline.spec,
  }),
  objects: (backend) => backend.pipelines,
};

export function pipelineController(): ControllerSpec {
  const provider = providerWatch(pipelineType);
  return {
    name: "pipeline",
    for: pipelineType,
    watches: [provider.watch],
    indexes: [provider.index],
    reconcile: syncReconciler(pipelineKind),
    permissions: syncedPermissions(pipelineType, [workflowTemplateType]),
  };
}
