import type { RunSchedule } from "../../apis/pipelines/run-schedule.ts";
import type { ControllerSpec } from "../../kube/types.ts";
import type { RunScheduleDefinition } from "../backend.ts";
import { ready } from "../blockers.ts";
import { EventDispatcher } from "../events/dispatcher.ts";
import { eventDeliveryStep } from "../events/reconcile.ts";
import { runScheduleEvents } from "../events/sources.ts";
import { scheduledRunsStep } from "../events/track-scheduled.ts";
import { pipelineVersion, resolveRunDefinition } from "../resolve.ts";
import { schedulePolicy } from "../schedule-policy.ts";
import type { SyncedKind } from "../sync/kind.ts";
import { syncReconciler } from "../sync/reconciler.ts";
import { types } from "../types.ts";
import { versionOf } from "../version.ts";
import { checkCron } from "./cron.ts";
import { pipelineWatch, providerWatch } from "./indexes.ts";
import { syncedPermissions } from "./permissions.ts";
import type { RunControllerDeps } from "./run.ts";

export const runScheduleKind: SyncedKind<RunSchedule, RunScheduleDefinition> = {
  type: types.runSchedule,
  role: "runSchedule",
  // the CronWorkflow embeds the pipeline: a new pipeline version is a new schedule version
  version: (schedule, cache) =>
    versionOf({
      spec: schedule.spec,
      pipeline: pipelineVersion(cache, schedule.metadata.namespace ?? "", schedule.spec.pipeline),
    }),
  definition: (schedule, owner, cache) => {
    const cron = checkCron(schedule.spec.schedule.cronExpression);
    if (cron) return { type: "blocked", blocker: cron };
    const run = resolveRunDefinition(cache, owner, schedule.spec);
    if (run.type === "blocked") return run;
    return ready({
      ...run.value,
      schedule: schedule.spec.schedule,
      ...schedulePolicy(schedule.spec),
    });
  },
  objects: (backend) => backend.runSchedules,
};

/** Also tracks the runs its schedule starts (their completion events). */
export function runScheduleController(deps: RunControllerDeps): ControllerSpec {
  const provider = providerWatch(types.runSchedule);
  const pipeline = pipelineWatch(types.runSchedule);
  const events = deps.events ?? new EventDispatcher();
  const source = runScheduleEvents(events.operatorSinks);
  const track = scheduledRunsStep(deps.backends, source, (deps.run?.completionPollSeconds ?? 60) * 1000);
  // delivery, then tracking (on the records delivery left), then sync: one status write
  const sync = syncReconciler(runScheduleKind, deps.backends, [eventDeliveryStep(source, events), track]);

  return {
    name: "runschedule",
    for: types.runSchedule,
    watches: [provider.watch, pipeline.watch],
    indexes: [provider.index, pipeline.index],
    reconcile: sync,
    permissions: [
      ...syncedPermissions(types.runSchedule, deps.backends, runScheduleKind.role),
      ...Object.values(deps.backends).flatMap((plugin) => plugin.scheduledRuns?.permissions ?? []),
    ],
  };
}
