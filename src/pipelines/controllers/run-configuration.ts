import type { Pipeline } from "../../apis/pipelines/pipeline.ts";
import type { Run } from "../../apis/pipelines/run.ts";
import type { RunConfiguration } from "../../apis/pipelines/run-configuration.ts";
import type { RunSchedule } from "../../apis/pipelines/run-schedule.ts";
import { type ConditionInput, setCondition } from "../../kube/conditions.ts";
import { ownerReference } from "../../kube/owners.ts";
import { sameJson } from "../../kube/same-json.ts";
import type { Cache, ControllerSpec, KubeObject, ObjectKey, ReconcileContext } from "../../kube/types.ts";
import { parsePipelineReference } from "../resolve.ts";
import { planRunConfiguration } from "../run-configuration-plan.ts";
import { pipelineType, runConfigurationType, runScheduleType, runType } from "../types.ts";
import { pipelineWatch } from "./indexes.ts";

const byTrigger = "triggered-by";
const configurationLabel = "pipelines.slipway.dev/run-configuration";

function schedulesCondition(schedules: RunSchedule[], wanted: number): ConditionInput {
  const states = schedules.map((s) => s.status?.state);
  if (schedules.length === wanted && states.every((s) => s === "Succeeded")) {
    return {
      type: "Synchronized",
      status: "True",
      reason: "Succeeded",
      message: `${wanted} schedule(s) synchronized`,
    };
  }
  const failed = schedules.find((s) => s.status?.state === "Failed");
  if (failed) {
    return {
      type: "Synchronized",
      status: "False",
      reason: "Failed",
      message: `RunSchedule ${failed.metadata.name} failed`,
    };
  }
  return {
    type: "Synchronized",
    status: "Unknown",
    reason: "Updating",
    message: "waiting for the RunSchedules",
  };
}

async function reconcileRunConfiguration(key: ObjectKey, context: ReconcileContext) {
  const { cache, client } = context;
  const configuration = cache.get<RunConfiguration>(runConfigurationType, key);
  if (!configuration || configuration.metadata.deletionTimestamp) return undefined;
  const namespace = configuration.metadata.namespace ?? "";
  const uid = configuration.metadata.uid ?? "";
  const owned = <T extends KubeObject>(type: typeof runType) => cache.byIndex<T>(type, "controller", uid);
  const ownedSchedules = owned<RunSchedule>(runScheduleType);
  const pipeline = cache.get<Pipeline>(pipelineType, {
    namespace,
    name: parsePipelineReference(configuration.spec.run.pipeline).name,
  });
  const sourceRuns = Object.fromEntries(
    (configuration.spec.triggers?.runConfigurations ?? []).map((name) => [
      name,
      cache.get<RunConfiguration>(runConfigurationType, { namespace, name })?.status?.latestRuns?.succeeded
        ?.id,
    ]),
  );
  const plan = planRunConfiguration(configuration, {
    pipelineVersion: pipeline?.status?.state === "Succeeded" ? pipeline.status.version : undefined,
    sourceRuns,
    runs: owned<Run>(runType),
    schedules: ownedSchedules.map((s) => s.metadata?.name ?? ""),
  });

  const ownerReferences = [ownerReference(configuration)];
  const labels = { [configurationLabel]: configuration.metadata.name ?? "" };
  for (const schedule of plan.schedules) {
    await client.apply({
      apiVersion: configuration.apiVersion,
      kind: "RunSchedule",
      metadata: { name: schedule.name, namespace, labels, ownerReferences },
      spec: schedule.spec,
    });
  }
  for (const name of plan.deleteSchedules) await client.delete(runScheduleType, { namespace, name });
  if (plan.run) {
    await client.apply({
      apiVersion: configuration.apiVersion,
      kind: "Run",
      metadata: { name: plan.run.name, namespace, labels, ownerReferences },
      spec: plan.run.spec,
    });
    context.events.event(
      configuration,
      "Normal",
      "RunCreated",
      `Run ${plan.run.name}: ${plan.run.reasons.join(", ")}`,
    );
  }

  const generation = configuration.metadata.generation;
  const condition = schedulesCondition(
    ownedSchedules.filter((s) => !plan.deleteSchedules.includes(s.metadata?.name ?? "")),
    plan.schedules.length,
  );
  const status = {
    provider: { name: configuration.spec.provider },
    observedGeneration: generation,
    conditions: setCondition(configuration.status?.conditions, condition, generation),
    ...(Object.keys(plan.triggers).length ? { triggers: plan.triggers } : {}),
    ...(plan.latestRuns.succeeded ? { latestRuns: plan.latestRuns } : {}),
  };
  if (!sameJson(status, configuration.status ?? {})) {
    await client.applyStatus({ ...configuration, status });
  }
  return undefined;
}

function triggerValues(object: KubeObject): string[] {
  const configuration = object as RunConfiguration;
  return (configuration.spec?.triggers?.runConfigurations ?? []).map(
    (name) => `${configuration.metadata.namespace}/${name}`,
  );
}

/** A RunConfiguration's change (its latest succeeded run) reaches those it triggers. */
function triggeredBy(object: KubeObject, cache: Cache): ObjectKey[] {
  const value = `${object.metadata?.namespace}/${object.metadata?.name}`;
  return cache.byIndex(runConfigurationType, byTrigger, value).map((c) => ({
    namespace: c.metadata?.namespace,
    name: c.metadata?.name ?? "",
  }));
}

export function runConfigurationController(): ControllerSpec {
  const pipeline = pipelineWatch(runConfigurationType);
  return {
    name: "runconfiguration",
    for: runConfigurationType,
    owns: [runType, runScheduleType],
    watches: [pipeline.watch, { type: runConfigurationType, map: triggeredBy }],
    indexes: [pipeline.index, { type: runConfigurationType, name: byTrigger, values: triggerValues }],
    reconcile: reconcileRunConfiguration,
    permissions: [
      { type: runConfigurationType, verbs: ["patch", "update"], subresource: "status" },
      { type: runType, verbs: ["create", "patch", "delete"] },
      { type: runScheduleType, verbs: ["create", "patch", "delete"] },
    ],
  };
}
