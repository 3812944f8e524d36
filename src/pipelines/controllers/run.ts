import type { Run } from "../../apis/pipelines/run.ts";
import type { ControllerSpec } from "../../kube/types.ts";
import type { BackendRegistry, RunDefinition } from "../backend.ts";
import { resolveRunDefinition } from "../resolve.ts";
import { followRun, type RunTiming } from "../run-completion.ts";
import type { SyncedKind } from "../sync/kind.ts";
import { syncReconciler } from "../sync/reconciler.ts";
import { types } from "../types.ts";
import { versionOf } from "../version.ts";
import { pipelineWatch, providerWatch } from "./indexes.ts";
import { syncedPermissions } from "./permissions.ts";

export interface RunOptions {
  /** How long a completed Run stays when its spec sets no ttlSecondsAfterCompletion. Default 1 day. */
  defaultTtlSeconds?: number;
  /** How often a running Run's completion is polled (ML runs take minutes to hours). Default 60 s. */
  completionPollSeconds?: number;
}

export function runKind(options: RunOptions = {}): SyncedKind<Run, RunDefinition> {
  const timing: RunTiming = {
    defaultTtlSeconds: options.defaultTtlSeconds ?? 86_400,
    pollMs: (options.completionPollSeconds ?? 60) * 1000,
  };
  return {
    type: types.run,
    role: "run",
    version: (run) => versionOf(run.spec),
    definition: (run, owner, cache) => resolveRunDefinition(cache, owner, run.spec),
    objects: (backend) => backend.runs,
    follow: (run, status, at) => followRun(run, status, at, timing),
  };
}

export function runController(deps: { backends: BackendRegistry; run?: RunOptions }): ControllerSpec {
  const provider = providerWatch(types.run);
  const pipeline = pipelineWatch(types.run);
  return {
    name: "run",
    for: types.run,
    // no Workflow informer: the operator must start where Argo is not installed (completion is polled)
    watches: [provider.watch, pipeline.watch],
    indexes: [provider.index, pipeline.index],
    reconcile: syncReconciler(runKind(deps.run), deps.backends),
    permissions: [
      ...syncedPermissions(types.run, deps.backends, "run"),
      { type: types.run, verbs: ["delete"] },
    ],
    concurrency: 8,
  };
}
