import type { Run } from "../../apis/pipelines/run.ts";
import type { ControllerSpec, KubeObject } from "../../kube/types.ts";
import type { BackendRegistry, RunDefinition } from "../backend.ts";
import { EventDispatcher } from "../events/dispatcher.ts";
import { eventDeliveryStep } from "../events/reconcile.ts";
import type { Sink } from "../events/sinks.ts";
import { runEvents } from "../events/sources.ts";
import { resolveRunDefinition } from "../resolve.ts";
import { runCachingStatus, withRunCaching } from "../run-caching.ts";
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

export function runKind(
  options: RunOptions = {},
  operatorSinks: readonly Sink[] = [],
): SyncedKind<Run, RunDefinition> {
  const timing: RunTiming = {
    defaultTtlSeconds: options.defaultTtlSeconds ?? 86_400,
    pollMs: (options.completionPollSeconds ?? 60) * 1000,
    operatorSinks,
  };
  return {
    type: types.run,
    role: "run",
    version: (run) => versionOf(run.spec),
    definition: (run, owner, cache) => resolveRunDefinition(cache, owner, run.spec),
    objects: (backend) => backend.runs,
    // a Run is submitted once (its spec is immutable) and Runs are the numerous kind: an Event for
    // each submission was a third Kubernetes write per Run; its failures and completion keep theirs
    normalTransitionEvents: false,
    follow: (run, status, at) =>
      withRunCaching(followRun(run, status, at, timing), runCachingStatus(run, at)),
  };
}

/** Each backend's run records, mapped to their Run. */
function runWatches(backends: BackendRegistry): NonNullable<ControllerSpec["watches"]> {
  return Object.values(backends).flatMap((plugin) => {
    const watch = plugin.runWatch;
    if (!watch) return [];
    const map = (object: KubeObject) => {
      const run = watch.runOf(object);
      return run ? [run] : [];
    };
    return [{ type: watch.type, optional: true, map }];
  });
}

/** What the Run and RunSchedule controllers run on; `events`: the operator's one dispatcher, which both share. */
export interface RunControllerDeps {
  backends: BackendRegistry;
  run?: RunOptions;
  events?: EventDispatcher;
}

/** The dispatcher's metrics are served here. */
export function runController(deps: RunControllerDeps): ControllerSpec {
  const provider = providerWatch(types.run);
  const pipeline = pipelineWatch(types.run);
  const events = deps.events ?? new EventDispatcher();
  const deliver = eventDeliveryStep(runEvents(events.operatorSinks), events);
  const sync = syncReconciler(runKind(deps.run, events.operatorSinks), deps.backends, [deliver]);
  return {
    name: "run",
    for: types.run,
    // a backend's run records (argo's Workflows) are optional: the operator starts where Argo is not
    // installed, and polls completion until the API server serves them
    watches: [provider.watch, pipeline.watch, ...runWatches(deps.backends)],
    indexes: [provider.index, pipeline.index],
    // delivery of its completion event is a step of the one reconcile: one status write
    reconcile: sync,
    permissions: [
      ...syncedPermissions(types.run, deps.backends, "run"),
      { type: types.run, verbs: ["delete"] },
    ],
    concurrency: 8,
    metrics: events.metrics.registry,
  };
}
