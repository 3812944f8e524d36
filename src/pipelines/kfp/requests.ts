/**
 * The bodies Slipway sends to KFP's REST API v2beta1 (field names as in its OpenAPI document and
 * the kfp-server-api models), built from a definition and a Provider (pure). What a definition
 * cannot become is an Error naming the resource's field.
 */

import { contentHash } from "../../lib/canonical.ts";
import type {
  ExperimentDefinition,
  Owner,
  PipelineDefinition,
  ProviderConfig,
  RunDefinition,
  RunScheduleDefinition,
} from "../backend.ts";
import { keyText } from "../provider-ref.ts";
import { defaultAllowedConcurrency, type PolicyRefusals, sentSchedule } from "../schedule-policy.ts";
import { kfpParameterName } from "./names.ts";
import { parameterType, typedValue } from "./parameters.ts";
import type { KfpSettings } from "./settings.ts";

export const api = "/apis/v2beta1";

/** What a KFP object is called: unique per Slipway resource (`namespace.name`). */
export const displayName = (owner: Owner) => `${owner.namespace}.${owner.name}`;

const describe = (owner: Owner) => `Slipway ${owner.kind} ${owner.namespace}/${owner.name}`;
const inNamespace = (settings: KfpSettings) => (settings.namespace ? { namespace: settings.namespace } : {});

export function pipelineBody(definition: PipelineDefinition, settings: KfpSettings) {
  return {
    display_name: displayName(definition.owner),
    description: describe(definition.owner),
    ...inNamespace(settings),
  };
}

/**
 * A pipeline version's name: the Slipway version hash, and when the Provider has settings the IR is
 * compiled with (defaultBeamArgs, defaultCaching) a hash of them: changing them makes a new IR, which
 * a version found again by its old name would not carry.
 */
export function versionName(definition: PipelineDefinition, provider: ProviderConfig): string {
  const { defaultBeamArgs, defaultCaching } = provider.spec;
  if (!defaultBeamArgs && !defaultCaching) return definition.version;
  return `${definition.version}-${contentHash({ defaultBeamArgs, defaultCaching }, { length: 8 })}`;
}

/** A pipeline version: named by versionName, the IR as its pipeline_spec. */
export function versionBody(pipelineId: string, definition: PipelineDefinition, ir: unknown, name: string) {
  return {
    pipeline_id: pipelineId,
    display_name: name,
    description: `${describe(definition.owner)} at version ${definition.version}`,
    pipeline_spec: ir,
  };
}

export function experimentBody(definition: ExperimentDefinition, settings: KfpSettings) {
  return {
    display_name: displayName(definition.owner),
    description: definition.description ?? describe(definition.owner),
    ...inNamespace(settings),
  };
}

/** A KFP object's reference in Slipway's status: a pipeline's is `pipeline_id/pipeline_version_id`. */
export function versionReference(id: string): { pipeline_id: string; pipeline_version_id: string } {
  const [pipelineId = "", versionId = ""] = id.split("/");
  return { pipeline_id: pipelineId, pipeline_version_id: versionId };
}

interface Synced {
  status?: { state?: string; provider?: { name?: string; id?: string } };
}

/** The id the object has in this Provider's KFP, or an error naming `field`. */
function syncedId(object: Synced, provider: ProviderConfig, what: string, field: string): string {
  const status = object.status;
  const here = keyText(provider.key);
  if (status?.state !== "Succeeded" || !status.provider?.id)
    throw new Error(`${field}: ${what} is not synchronized yet`);
  if (status.provider.name !== here)
    throw new Error(`${field}: ${what} is synchronized in provider ${status.provider.name}, not ${here}`);
  return status.provider.id;
}

/** The pipeline version a run runs: the Pipeline's, synchronized in the same Provider. */
export function runPipelineReference(run: RunDefinition, provider: ProviderConfig) {
  const pipeline = `Pipeline ${run.pipeline.name}`;
  return versionReference(syncedId(run.pipeline.owner.object as Synced, provider, pipeline, "spec.pipeline"));
}

/** The experiment a run goes into: `experimentName`'s Experiment, synchronized in the same Provider. */
export function runExperimentId(run: RunDefinition, provider: ProviderConfig): string | undefined {
  if (!run.experimentName) return undefined;
  const what = `Experiment ${run.experimentName}`;
  if (!run.experiment) throw new Error(`spec.experimentName: ${what} does not exist`);
  return syncedId(run.experiment as Synced, provider, what, "spec.experimentName");
}

/** Runtime parameters under KFP's names, typed as the Pipeline's defaults type them in the IR. */
export function runtimeParameters(run: RunDefinition): Record<string, unknown> {
  const declared = run.pipeline.spec.parameters ?? [];
  const values: Record<string, unknown> = {};
  for (const { name, value } of run.parameters) {
    const parameter = declared.find((p) => p.name === name);
    if (!parameter)
      throw new Error(`spec.parameters[${name}]: Pipeline ${run.pipeline.name} has no such parameter`);
    const type = parameterType(parameter.default);
    const typed = typedValue(type, value);
    if (typed === undefined)
      throw new Error(
        `spec.parameters[${name}]: ${JSON.stringify(value)} is not a ${type} (the type of its default)`,
      );
    values[kfpParameterName(name)] = typed;
  }
  return values;
}

function runtimeConfig(run: RunDefinition, provider: ProviderConfig) {
  const root = provider.spec.pipelineRootStorage;
  return { parameters: runtimeParameters(run), ...(root ? { pipeline_root: root } : {}) };
}

function runFields(run: RunDefinition, provider: ProviderConfig) {
  const experimentId = runExperimentId(run, provider);
  const serviceAccount = provider.spec.serviceAccount;
  return {
    display_name: displayName(run.owner),
    description: describe(run.owner),
    pipeline_version_reference: runPipelineReference(run, provider),
    runtime_config: runtimeConfig(run, provider),
    ...(experimentId ? { experiment_id: experimentId } : {}),
    ...(serviceAccount ? { service_account: serviceAccount } : {}),
  };
}

/**
 * A run (V2beta1Run): of the Pipeline's version, or, given `pipelineSpec` (the IR compiled with the
 * Run's caching), of that spec: KFP's API has no run-level caching switch, and the SDK's
 * `enable_caching` likewise submits the spec with every task's cachingOptions overwritten.
 */
export function runBody(run: RunDefinition, provider: ProviderConfig, pipelineSpec?: unknown) {
  const { pipeline_version_reference, ...fields } = runFields(run, provider);
  return pipelineSpec === undefined
    ? { ...fields, pipeline_version_reference }
    : { ...fields, pipeline_spec: pipelineSpec };
}

/** KFP's cron has a seconds field first (6 fields); a 5-field expression runs at second 0. */
export function kfpCron(expression: string): string {
  const trimmed = expression.trim();
  if (trimmed.startsWith("@")) return trimmed;
  return trimmed.split(/\s+/).length === 5 ? `0 ${trimmed}` : trimmed;
}

/**
 * What a recurring run cannot do of a schedule's policy: stop a running run (Replace), or bound
 * catch-up (KFP's no_catchup=false starts every missed run).
 */
export const kfpPolicyRefusals: PolicyRefusals = {
  replace: "a KFP recurring run cannot stop a running run (Replace is for argo): use Forbid or Allow",
  startingDeadline:
    "a KFP recurring run catches up every missed run (no_catchup=false) and cannot bound it: leave it unset",
};

/**
 * A recurring run (V2beta1RecurringRun). A startTime in the past is left out: KFP's scheduler
 * counts the intervals from start_time when set, even long past (CronSchedule's
 * getEffectiveLastJobEpoch in backend/src/crd/controller/scheduledworkflow), so a recurring run
 * created again by an edit would start the runs its predecessor already started; unset, it counts
 * from its creation.
 */
export function recurringRunBody(
  schedule: RunScheduleDefinition,
  provider: ProviderConfig,
  settings: KfpSettings,
  now: number,
) {
  const { cronExpression, startTime, endTime } = sentSchedule(schedule, kfpPolicyRefusals, now);
  return {
    ...runFields(schedule, provider),
    ...inNamespace(settings),
    max_concurrency: String(schedule.maxConcurrency ?? defaultAllowedConcurrency),
    no_catchup: !schedule.catchUp,
    mode: "ENABLE",
    trigger: {
      cron_schedule: {
        cron: kfpCron(cronExpression),
        ...(startTime ? { start_time: startTime } : {}),
        ...(endTime ? { end_time: endTime } : {}),
      },
    },
  };
}

/** Runs listed per page when tracking a recurring run's runs, and the pages read per poll. */
export const scheduledRunsPage = { size: 100, pages: 5 };

/**
 * ListRuns' query for the finished runs a recurring run started (V2beta1Filter on the run fields
 * KFP's API server filters by: `recurring_run_id`, `finished_at`), oldest first: those finished at
 * `since` or later, or every finished one (an unfinished run's finished_at is the epoch).
 */
export function scheduledRunsQuery(
  recurringRunId: string,
  since: string | undefined,
  settings: KfpSettings,
  pageToken?: string,
): Record<string, string | undefined> {
  const finished = since
    ? { key: "finished_at", operation: "GREATER_THAN_EQUALS", timestamp_value: since }
    : { key: "finished_at", operation: "GREATER_THAN", timestamp_value: "1970-01-01T00:00:00Z" };
  const predicates = [
    { key: "recurring_run_id", operation: "EQUALS", string_value: recurringRunId },
    finished,
  ];
  return {
    filter: JSON.stringify({ predicates }),
    sort_by: "finished_at",
    page_size: String(scheduledRunsPage.size),
    ...inNamespace(settings),
    ...(pageToken ? { page_token: pageToken } : {}),
  };
}
