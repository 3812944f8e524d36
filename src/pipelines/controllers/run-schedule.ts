import type { RunSchedule } from "../../apis/pipelines/run-schedule.ts";
import type { ControllerSpec } from "../../kube/types.ts";
import type { RunScheduleDefinition } from "../backend.ts";
import { pipelineVersion, resolveParameters, resolvePipeline } from "../resolve.ts";
import { type SyncedKind, syncReconciler } from "../sync/reconciler.ts";
import { cronWorkflowType, runScheduleType } from "../types.ts";
import { versionOf } from "../version.ts";
import { checkCron } from "./cron.ts";
import { pipelineWatch, providerWatch } from "./indexes.ts";
import { syncedPermissions } from "./permissions.ts";

export const runScheduleKind: SyncedKind<RunSchedule, RunScheduleDefinition> = {
  type: runScheduleType,
  // the CronWorkflow embeds the pipeline: a new pipeline version is a new schedule version
  version: (schedule, cache) =>
    versionOf({
      spec: schedule.spec,
      pipeline: pipelineVersion(cache, schedule.metadata.namespace ?? "", schedule.spec.pipeline),
    }),
  definition: (schedule, owner, cache) => {
    const cron = checkCron(schedule.spec.schedule.cronExpression);
    if (cron) return cron;
    const pipeline = resolvePipeline(cache, owner.namespace, schedule.spec.pipeline);
    if ("reason" in pipeline) return pipeline;
    const parameters = resolveParameters(cache, owner.namespace, schedule.spec.parameters);
    if ("reason" in parameters) return parameters;
    return {
      owner,
      pipeline,
      experimentName: schedule.spec.experimentName,
      parameters,
      artifacts: schedule.spec.artifacts ?? [],
      schedule: schedule.spec.schedule,
    };
  },
  objects: (backend) => backend.runSchedules,
};

export function runScheduleController(): ControllerSpec {
  const provider = providerWatch(runScheduleType);
  const pipeline = pipelineWatch(runScheduleType);
  return {
    name: "runschedule",
    for: runScheduleType,
    watches: [provider.watch, pipeline.watch],
    indexes: [provider.index, pipeline.index],
    reconcile: syncReconciler(runScheduleKind),
    permissions: syncedPermissions(runScheduleType, [cronWorkflowType]),
  };
}
