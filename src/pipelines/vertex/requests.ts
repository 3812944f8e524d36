/**
 * What Slipway sends to Vertex AI (aiplatform v1, in the client's protobuf object form), pure:
 * Run → PipelineJob, RunSchedule → Schedule with a createPipelineJobRequest; and a Run's completion
 * from the job's state.
 */
import { createHash } from "node:crypto";
import type {
  Owner,
  ProviderConfig,
  RunCompletion,
  RunDefinition,
  RunProgress,
  RunScheduleDefinition,
} from "../backend.ts";
import type { ScheduledCompletion } from "../events/scheduled.ts";
import { compilePipeline, runCompileError } from "../kfp/compile.ts";
import { kfpName, taskName } from "../kfp/names.ts";
import { runtimeParameters } from "../kfp/requests.ts";
import { finishedRun, observedRun } from "../run-steps.ts";
import { defaultAllowedConcurrency, type PolicyRefusals, sentSchedule } from "../schedule-policy.ts";
import { timestampText, type VertexTaskDetail, vertexRunSteps } from "./run-steps.ts";
import { locationName, type VertexSettings } from "./settings.ts";

type Value = {
  nullValue?: "NULL_VALUE";
  numberValue?: number;
  stringValue?: string;
  boolValue?: boolean;
  structValue?: Struct;
  listValue?: { values: Value[] };
};
export type Struct = { fields: Record<string, Value> };

/** JSON → google.protobuf.Value, as protobuf's own JSON mapping does. */
export function toValue(json: unknown): Value {
  if (json === null || json === undefined) return { nullValue: "NULL_VALUE" };
  if (typeof json === "number") return { numberValue: json };
  if (typeof json === "string") return { stringValue: json };
  if (typeof json === "boolean") return { boolValue: json };
  if (Array.isArray(json)) return { listValue: { values: json.map(toValue) } };
  return { structValue: toStruct(json as Record<string, unknown>) };
}

export function toStruct(json: Record<string, unknown>): Struct {
  return { fields: Object.fromEntries(Object.entries(json).map(([k, v]) => [k, toValue(v)])) };
}

/** Vertex label values: lowercase letters, digits, `-` and `_`, at most 63 characters. */
const labelValue = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^-_a-z0-9]/g, "-")
    .slice(0, 63);

export function ownerLabels(owner: Owner): Record<string, string> {
  return {
    "slipway-kind": labelValue(owner.kind),
    "slipway-namespace": labelValue(owner.namespace),
    "slipway-name": labelValue(owner.name),
  };
}

/** A job or schedule id unique per Slipway resource (its uid): a create made again finds the same one. */
export function vertexId(owner: Owner): string {
  const uid = owner.object.metadata?.uid ?? `${owner.namespace}/${owner.name}`;
  const hash = createHash("sha256").update(uid).digest("hex").slice(0, 10);
  return `${kfpName(`${owner.namespace}-${owner.name}`).slice(0, 100)}-${hash}`;
}

/**
 * A Run's pipeline as the job's `pipelineSpec`: its IR (compiled for the Provider's default Beam
 * arguments and caching, and the Run's caching) as a protobuf Struct. The same for every Run of one Pipeline version and Provider
 * (see pipelineSpecKey), so a backend keeps it instead of compiling it per Run.
 */
export function pipelineSpecOf(run: RunDefinition, provider: ProviderConfig): Struct {
  return toStruct(irOf(run, provider) as unknown as Record<string, unknown>);
}

/**
 * What pipelineSpecOf depends on: the Pipeline's name and version (its spec's hash), the Provider's
 * Beam arguments and default caching, and the Run's caching.
 */
export function pipelineSpecKey(run: RunDefinition, provider: ProviderConfig): string {
  return JSON.stringify([
    run.pipeline.name,
    run.pipeline.version,
    provider.spec.defaultBeamArgs ?? null,
    provider.spec.defaultCaching ?? null,
    run.caching ?? null,
  ]);
}

function irOf(run: RunDefinition, provider: ProviderConfig) {
  const compiled = compilePipeline({
    name: run.pipeline.name,
    spec: run.pipeline.spec,
    defaultBeamArgs: provider.spec.defaultBeamArgs,
    defaultCaching: provider.spec.defaultCaching,
    // a PipelineJob has no caching switch of its own: the Vertex SDK's enable_caching also rewrites the tasks
    runCaching: run.caching,
  });
  if (!compiled.ok) throw new Error(runCompileError(compiled, run.pipeline.name, run.caching));
  return compiled.ir;
}

export function pipelineJob(
  run: RunDefinition,
  provider: ProviderConfig,
  settings: VertexSettings,
  pipelineSpec: Struct = pipelineSpecOf(run, provider),
) {
  const root = provider.spec.pipelineRootStorage;
  if (root !== undefined && !root.startsWith("gs://"))
    throw new Error(
      `spec.pipelineRootStorage: Vertex writes a run's outputs to Cloud Storage: gs://…, not ${root}`,
    );
  const parameters = runtimeParameters(run);
  return {
    displayName: `${run.owner.namespace}.${run.owner.name}`,
    pipelineSpec,
    runtimeConfig: {
      ...(root ? { gcsOutputDirectory: root } : {}),
      parameterValues: Object.fromEntries(Object.entries(parameters).map(([k, v]) => [k, toValue(v)])),
    },
    labels: ownerLabels(run.owner),
    ...(settings.serviceAccount ? { serviceAccount: settings.serviceAccount } : {}),
    ...(settings.network ? { network: settings.network } : {}),
  };
}

const descriptors: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

/** Vertex takes unix-cron (5 fields) with a time zone: `TZ=UTC …` (as on argo, schedules are in UTC). */
export function vertexCron(expression: string): string {
  const trimmed = expression.trim();
  const fields = descriptors[trimmed] ?? trimmed;
  const count = fields.split(/\s+/).length;
  if (count !== 5)
    throw new Error(
      `spec.schedule.cronExpression: the vertex backend takes 5 cron fields (minute resolution), not ${count}`,
    );
  return `TZ=UTC ${fields}`;
}

/**
 * What a Vertex Schedule cannot do of a schedule's policy: stop a running job (Replace), or bound
 * catch-up (its allowQueueing queues every run over the limit; its catch_up is output only, set by
 * ResumeSchedule).
 */
export const vertexPolicyRefusals: PolicyRefusals = {
  replace: "a Vertex AI Schedule cannot stop a running job (Replace is for argo): use Forbid or Allow",
  startingDeadline:
    "a Vertex AI Schedule cannot bound catch-up (allowQueueing queues every run over the limit): leave it unset",
};

const timestamp = (time: string | number) => ({
  seconds: Math.floor((typeof time === "number" ? time : Date.parse(time)) / 1000),
});

/**
 * A Schedule: a past startTime is left out (Vertex would start the runs missed since then at once).
 * At most maxConcurrency jobs are started (maxConcurrentRunCount) and running
 * (maxConcurrentActiveRunCount, which counts the jobs not yet finished); allowQueueing queues a due
 * run over the limit instead of skipping it.
 */
export function schedule(
  definition: RunScheduleDefinition,
  provider: ProviderConfig,
  settings: VertexSettings,
  now: number,
) {
  const { cronExpression, startTime, endTime } = sentSchedule(definition, vertexPolicyRefusals, now);
  const concurrency = definition.maxConcurrency ?? defaultAllowedConcurrency;
  return {
    displayName: `${definition.owner.namespace}.${definition.owner.name}`,
    cron: vertexCron(cronExpression),
    ...(startTime ? { startTime: timestamp(startTime) } : {}),
    ...(endTime ? { endTime: timestamp(endTime) } : {}),
    maxConcurrentRunCount: concurrency,
    maxConcurrentActiveRunCount: concurrency,
    allowQueueing: definition.catchUp,
    createPipelineJobRequest: {
      parent: locationName(settings),
      pipelineJob: pipelineJob(definition, provider, settings),
    },
  };
}

/** Schedule fields (camelCase) → the update mask's paths (the proto's snake_case names). */
const maskPath = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The latest time a protobuf Timestamp holds (9999-12-31T23:59:59Z): an endTime that never comes. */
export const neverEnds = { seconds: 253_402_300_799 };

/**
 * UpdateSchedule's request for the live Schedule `name`: every field Slipway sets, in the mask.
 * Vertex starts no run due before the update (ScheduleService.UpdateSchedule) and cannot unset a
 * field set before: the startTime is the later of the spec's and now, and no endTime is neverEnds.
 */
export function scheduleUpdate(
  name: string,
  definition: RunScheduleDefinition,
  provider: ProviderConfig,
  settings: VertexSettings,
  now: number,
) {
  const fields = schedule(definition, provider, settings, now);
  const { startTime, endTime } = definition.schedule;
  const updated = {
    ...fields,
    startTime: timestamp(startTime ? Math.max(Date.parse(startTime), now) : now),
    endTime: endTime ? timestamp(endTime) : neverEnds,
  };
  return {
    schedule: { ...updated, name },
    updateMask: { paths: Object.keys(updated).map(maskPath) },
  };
}

export interface VertexJob {
  state?: string | number | null;
  endTime?: { seconds?: number | string | { toString(): string } | null } | null;
  error?: { message?: string | null } | null;
  jobDetail?: { taskDetails?: VertexTaskDetail[] | null } | null;
}

const succeeded = "PIPELINE_STATE_SUCCEEDED";
const failed = new Set(["PIPELINE_STATE_FAILED", "PIPELINE_STATE_CANCELLED"]);
const vertexSaid = { backend: "Vertex AI", run: "pipeline job" };

/**
 * SUCCEEDED → Succeeded, FAILED/CANCELLED → Failed, else running; artifacts `<step>:<name>` by their
 * URIs; the steps are the job detail's tasks of the pipeline's `steps` (run-steps.ts), and a failed
 * job names its step.
 */
export function vertexRunCompletion(
  job: VertexJob,
  wanted: { name: string; path: string }[],
  stepNames?: readonly string[],
): RunCompletion | undefined {
  const state = String(job.state ?? "");
  if (state !== succeeded && !failed.has(state)) return undefined;
  const tasks = job.jobDetail?.taskDetails ?? [];
  const artifacts = wanted.flatMap(({ name, path }) => {
    const [step = "", output = ""] = path.split(":");
    const uri = tasks.find((t) => t.taskName === taskName(step))?.outputs?.[output]?.artifacts?.[0]?.uri;
    return uri ? [{ name, location: uri }] : [];
  });
  return finishedRun({
    succeeded: state === succeeded,
    finishedAt: timestampText(job.endTime),
    artifacts,
    steps: vertexRunSteps(tasks, stepNames),
    runMessage: job.error?.message ?? undefined,
    said: vertexSaid,
  });
}

/** What one read of the job says: its completion, or while it runs its steps so far. */
export function vertexRunObservation(
  job: VertexJob,
  wanted: { name: string; path: string }[],
  stepNames?: readonly string[],
): RunCompletion | RunProgress {
  return observedRun(vertexRunCompletion(job, wanted, stepNames), () =>
    vertexRunSteps(job.jobDetail?.taskDetails ?? [], stepNames),
  );
}

/** Jobs listed per page when tracking a Schedule's jobs, and the pages read per poll. */
export const scheduledJobsPage = { size: 100, pages: 5 };

/**
 * ListPipelineJobs' request for the finished jobs a Schedule started, oldest first: `schedule_name`
 * (the job's field naming its Schedule, the filter the client libraries list a schedule's jobs by)
 * and `end_time` at `since` or later, or set at all (AIP-160 filter syntax).
 */
export function scheduledJobsRequest(
  parent: string,
  scheduleName: string,
  since: string | undefined,
  pageToken?: string,
) {
  const ended = since ? `end_time>="${since}"` : `end_time>"1970-01-01T00:00:00Z"`;
  return {
    parent,
    filter: `schedule_name="${scheduleName}" AND ${ended}`,
    orderBy: "end_time",
    pageSize: scheduledJobsPage.size,
    ...(pageToken ? { pageToken } : {}),
  };
}

/** The finished jobs of a ListPipelineJobs page, each with its name as the run id (pure). */
export function vertexScheduledCompletions(
  jobs: readonly (VertexJob & { name?: string | null })[],
  wanted: { name: string; path: string }[],
): ScheduledCompletion[] {
  return jobs.flatMap((job) => {
    const completion = job.name ? vertexRunCompletion(job, wanted) : undefined;
    return completion ? [{ ...completion, runId: job.name as string }] : [];
  });
}
