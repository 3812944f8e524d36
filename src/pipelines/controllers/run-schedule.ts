import type { RunSchedule } from "../../apis/pipelines/run-schedule.ts";
import type { ControllerSpec } from "../../kube/types.ts";
import type { BackendRegistry, RunScheduleDefinition } from "../backend.ts";
import { ready } from "../blockers.ts";
import { pipelineVersion, resolveRunDefinition } from "../resolve.ts";
import type { SyncedKind } from "../sync/kind.ts";
import { syncReconciler } from "../sync/reconciler.ts";
import { types } from "../types.ts";
import { versionOf } from "../version.ts";
import { checkCron } from "./cron.ts";
import { pipelineWatch, providerWatch } from "./indexes.ts";
import { syncedPermissions } from "./permissions.ts";

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
      maxConcurrency: schedule.spec.maxConcurrency ?? 1,
      catchUp: schedule.spec.catchUp ?? false,
    });
  },
  objects: (backend) => backend.runSchedules,
};

export function runScheduleController(deps: { backends: BackendRegistry }): ControllerSpec {
  const provider = providerWatch(types.runSchedule);
  const pipeline = pipelineWatch(types.runSchedule);
  return {
    name: "runschedule",
    for: types.runSchedule,
    watches: [provider.watch, pipeline.watch],
    indexes: [provider.index, pipeline.index],
    reconcile: syncReconciler(runScheduleKind, deps.backends),
    permissions: syncedPermissions(types.runSchedule, deps.backends, runScheduleKind.role),
  };
}
