import type { Pipeline } from "../../apis/pipelines/pipeline.ts";
import type { Provider } from "../../apis/pipelines/provider.ts";
import type { Run } from "../../apis/pipelines/run.ts";
import type { RunConfiguration } from "../../apis/pipelines/run-configuration.ts";
import type { RunSchedule } from "../../apis/pipelines/run-schedule.ts";
import { type ConditionInput, removeCondition, setCondition } from "../../kube/conditions.ts";
import { ownerReference } from "../../kube/owners.ts";
import { executePlan, type PlanCommand } from "../../kube/plan.ts";
import { type StatusEvent, StatusWriter } from "../../kube/status-writer.ts";
import type { Cache, ControllerSpec, KubeObject, ObjectKey, ReconcileContext } from "../../kube/types.ts";
import { keyText } from "../provider-ref.ts";
import { parsePipelineReference } from "../resolve.ts";
import { planRunConfiguration, type RunConfigurationPlan } from "../run-configuration-plan.ts";
import {
  type TriggerLookup,
  type TriggerSources,
  triggerSources,
  triggerSourceText,
  triggersConditionType,
} from "../trigger-sources.ts";
import { types } from "../types.ts";
import { byProvider, pipelineWatch, providerWatch } from "./indexes.ts";

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
    // its own condition names the field and the backend's reason (a policy it refused, say)
    const why = failed.status?.conditions?.find((c) => c.type === "Synchronized")?.message;
    return {
      type: "Synchronized",
      status: "False",
      reason: "Failed",
      message: `RunSchedule ${failed.metadata.name} failed${why ? `: ${why}` : ""}`,
    };
  }
  return {
    type: "Synchronized",
    status: "Unknown",
    reason: "Updating",
    message: "waiting for the RunSchedules",
  };
}

type RunConfigurationStatus = NonNullable<RunConfiguration["status"]>;
type Writer = StatusWriter<RunConfigurationStatus>;

/** Where the cache finds a trigger's source RunConfiguration and the Provider it runs on. */
const cacheLookup = (cache: Cache): TriggerLookup => ({
  configuration: (key) => cache.get<RunConfiguration>(types.runConfiguration, key),
  provider: (key) => cache.get<Provider>(types.provider, key),
});

/** What the plan's RunConfiguration observes in the cache. */
function observed(cache: Cache, configuration: RunConfiguration, owned: OwnedBy, sources: TriggerSources) {
  const namespace = configuration.metadata.namespace ?? "";
  const pipeline = cache.get<Pipeline>(types.pipeline, {
    namespace,
    name: parsePipelineReference(configuration.spec.run.pipeline).name,
  });
  return {
    pipelineVersion: pipeline?.status?.state === "Succeeded" ? pipeline.status.version : undefined,
    sourceRuns: sources.sourceRuns,
    runs: owned.runs,
    schedules: owned.schedules.map((s) => s.metadata?.name ?? ""),
  };
}

interface OwnedBy {
  runs: Run[];
  schedules: RunSchedule[];
}

/** The status a plan leads to, and the Event of the Run it creates (recorded with the write only). */
export function runConfigurationStatus(
  configuration: RunConfiguration,
  plan: RunConfigurationPlan,
  schedules: RunSchedule[],
  triggers?: ConditionInput,
): { status: RunConfigurationStatus; event?: StatusEvent } {
  const generation = configuration.metadata.generation;
  const condition = schedulesCondition(
    schedules.filter((s) => !plan.deleteSchedules.includes(s.metadata?.name ?? "")),
    plan.schedules.length,
  );
  const previous = configuration.status?.conditions;
  const kept = triggers
    ? setCondition(previous, triggers, generation)
    : removeCondition(previous, triggersConditionType);
  const status = {
    provider: { name: configuration.spec.provider },
    observedGeneration: generation,
    conditions: setCondition(kept, condition, generation),
    ...(Object.keys(plan.triggers).length ? { triggers: plan.triggers } : {}),
    ...(plan.latestRuns.succeeded ? { latestRuns: plan.latestRuns } : {}),
  };
  if (!plan.run) return { status };
  const message = `Run ${plan.run.name}: ${plan.run.reasons.join(", ")}`;
  return { status, event: { type: "Normal", reason: "RunCreated", message } };
}

/** The children to apply or delete, then the status: the commands `executePlan` carries out (pure). */
function runConfigurationCommands(
  configuration: RunConfiguration,
  plan: RunConfigurationPlan,
  { status, event }: { status: RunConfigurationStatus; event?: StatusEvent },
): PlanCommand<RunConfigurationStatus>[] {
  const namespace = configuration.metadata.namespace ?? "";
  const ownerReferences = [ownerReference(configuration)];
  const labels = { [configurationLabel]: configuration.metadata.name ?? "" };
  const child = (kind: string, name: string, spec: unknown) => ({
    type: "Apply" as const,
    object: {
      apiVersion: configuration.apiVersion,
      kind,
      metadata: { name, namespace, labels, ownerReferences },
      spec,
    },
  });
  return [
    ...plan.schedules.map((schedule) => child("RunSchedule", schedule.name, schedule.spec)),
    ...plan.deleteSchedules.map((name) => ({
      type: "Delete" as const,
      resource: types.runSchedule,
      key: { namespace, name },
    })),
    // the Run's name is derived from what triggered it: applying it again from a stale copy is harmless
    ...(plan.run ? [child("Run", plan.run.name, plan.run.spec)] : []),
    { type: "SetStatus", status, ...(event ? { events: [event] } : {}) },
  ];
}

async function reconcileRunConfiguration(writer: Writer, key: ObjectKey, context: ReconcileContext) {
  const { cache } = context;
  const configuration = cache.get<RunConfiguration>(types.runConfiguration, key);
  if (!configuration || configuration.metadata.deletionTimestamp) return undefined;
  const uid = configuration.metadata.uid ?? "";
  const owned: OwnedBy = {
    runs: cache.byIndex<Run>(types.run, "controller", uid),
    schedules: cache.byIndex<RunSchedule>(types.runSchedule, "controller", uid),
  };
  const sources = triggerSources(configuration, cacheLookup(cache));
  const plan = planRunConfiguration(configuration, observed(cache, configuration, owned, sources));
  const status = runConfigurationStatus(configuration, plan, owned.schedules, sources.condition);
  const commands = runConfigurationCommands(configuration, plan, status);
  return executePlan(commands, { resource: types.runConfiguration, object: configuration, writer, context });
}

function triggerValues(object: KubeObject): string[] {
  const configuration = object as RunConfiguration;
  return (configuration.spec?.triggers?.runConfigurations ?? []).map((entry) =>
    triggerSourceText(entry, configuration.metadata.namespace ?? ""),
  );
}

/** A RunConfiguration's change (its latest succeeded run) reaches those it triggers, in any namespace. */
function triggeredBy(object: KubeObject, cache: Cache): ObjectKey[] {
  const value = `${object.metadata?.namespace}/${object.metadata?.name}`;
  return cache.byIndex(types.runConfiguration, byTrigger, value).map((c) => ({
    namespace: c.metadata?.namespace,
    name: c.metadata?.name ?? "",
  }));
}

/** A Provider's change (its allowedNamespaces) reaches those triggered by the RunConfigurations it runs. */
function triggeredThrough(provider: KubeObject, cache: Cache): ObjectKey[] {
  const key = { namespace: provider.metadata?.namespace ?? "", name: provider.metadata?.name ?? "" };
  return cache
    .byIndex(types.runConfiguration, byProvider, keyText(key))
    .flatMap((source) => triggeredBy(source, cache));
}

export function runConfigurationController(): ControllerSpec {
  const writer: Writer = new StatusWriter();
  const pipeline = pipelineWatch(types.runConfiguration);
  const provider = providerWatch(types.runConfiguration);
  return {
    name: "runconfiguration",
    for: types.runConfiguration,
    owns: [types.run, types.runSchedule],
    watches: [
      pipeline.watch,
      { type: types.runConfiguration, map: triggeredBy },
      { type: types.provider, map: triggeredThrough },
    ],
    indexes: [
      pipeline.index,
      provider.index,
      { type: types.runConfiguration, name: byTrigger, values: triggerValues },
    ],
    reconcile: (key, context) => reconcileRunConfiguration(writer, key, context),
    permissions: [
      { type: types.runConfiguration, verbs: ["patch", "update"], subresource: "status" },
      { type: types.run, verbs: ["create", "patch", "delete"] },
      { type: types.runSchedule, verbs: ["create", "patch", "delete"] },
    ],
  };
}
