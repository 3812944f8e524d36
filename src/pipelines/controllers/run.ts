import type { Provider } from "../../apis/pipelines/provider.ts";
import type { Run } from "../../apis/pipelines/run.ts";
import { rfc3339 } from "../../kube/conditions.ts";
import type { ControllerSpec } from "../../kube/types.ts";
import type { RunDefinition } from "../backend.ts";
import { providerKey } from "../provider-ref.ts";
import { resolveParameters, resolvePipeline } from "../resolve.ts";
import { type SyncedKind, syncReconciler } from "../sync/reconciler.ts";
import { providerType, runType, workflowType } from "../types.ts";
import { versionOf } from "../version.ts";
import { pipelineWatch, providerWatch } from "./indexes.ts";
import { syncedPermissions } from "./permissions.ts";

export interface RunOptions {
  /** How long a completed Run stays when its spec sets no ttlSecondsAfterCompletion. Default 1 day. */
  defaultTtlSeconds?: number;
  /** How often a running Run's completion is polled (ML runs take minutes to hours). Default 60 s. */
  completionPollSeconds?: number;
}

/** When a completed Run is due for deletion, and how long until then. */
export function expiry(
  run: Run,
  defaultTtlSeconds: number,
  now: number,
): { expired: boolean; inMs?: number } {
  const completedAt = run.status?.markedCompletedAt;
  if (!completedAt) return { expired: false };
  const ttl = (run.spec.ttlSecondsAfterCompletion ?? defaultTtlSeconds) * 1000;
  const remaining = Date.parse(completedAt) + ttl - now;
  return remaining <= 0 ? { expired: true } : { expired: false, inMs: remaining };
}

export function runKind(options: RunOptions = {}): SyncedKind<Run, RunDefinition> {
  const defaultTtlSeconds = options.defaultTtlSeconds ?? 86_400;
  const pollMs = (options.completionPollSeconds ?? 60) * 1000;
  return {
    type: runType,
    version: (run) => versionOf(run.spec),
    definition: (run, owner, cache) => {
      const pipeline = resolvePipeline(cache, owner.namespace, run.spec.pipeline);
      if ("reason" in pipeline) return pipeline;
      const parameters = resolveParameters(cache, owner.namespace, run.spec.parameters);
      if ("reason" in parameters) return parameters;
      return {
        owner,
        pipeline,
        experimentName: run.spec.experimentName,
        parameters,
        artifacts: run.spec.artifacts ?? [],
      };
    },
    objects: (backend) => backend.runs,
    observe: async (run, backend, status, context, { now, justSynchronized }) => {
      let completion = {
        completionState: run.status?.completionState,
        markedCompletedAt: run.status?.markedCompletedAt,
        artifacts: run.status?.artifacts,
      };
      // a run just started has not finished: its first poll comes one interval later
      if (!completion.completionState && justSynchronized) return { requeueAfterMs: pollMs };
      if (!completion.completionState && status.provider?.id) {
        const key = providerKey(status.provider.name, run.metadata.namespace ?? "");
        const provider = context.cache.get<Provider>(providerType, key);
        const done = await backend.runs.completion(key, status.provider.id, {
          artifacts: run.spec.artifacts ?? [],
          pipelineRootStorage: provider?.spec.pipelineRootStorage,
        });
        if (done) {
          completion = {
            completionState: done.state,
            markedCompletedAt: rfc3339(new Date(now)),
            artifacts: done.artifacts,
          };
          context.events.event(
            run,
            done.state === "Succeeded" ? "Normal" : "Warning",
            `Run${done.state}`,
            `the run ${done.state === "Succeeded" ? "succeeded" : "failed"}`,
          );
        }
      }
      const completionStatus = Object.fromEntries(
        Object.entries(completion).filter(([, v]) => v !== undefined),
      );
      if (!completion.completionState) return { status: completionStatus, requeueAfterMs: pollMs };
      const due = expiry({ ...run, status: { ...run.status, ...completion } }, defaultTtlSeconds, now);
      return {
        status: completionStatus,
        expired: due.expired,
        ...(due.inMs === undefined ? {} : { requeueAfterMs: due.inMs }),
      };
    },
  };
}

export function runController(options: RunOptions = {}): ControllerSpec {
  const provider = providerWatch(runType);
  const pipeline = pipelineWatch(runType);
  return {
    name: "run",
    for: runType,
    // no Workflow informer: the operator must start where Argo is not installed (completion is polled)
    watches: [provider.watch, pipeline.watch],
    indexes: [provider.index, pipeline.index],
    reconcile: syncReconciler(runKind(options)),
    permissions: [...syncedPermissions(runType, [workflowType]), { type: runType, verbs: ["delete"] }],
    concurrency: 8,
  };
}
