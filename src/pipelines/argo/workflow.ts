/** Pure builders of Argo objects from pipeline resources (the argo backend applies them). */
import type { Static } from "@sinclair/typebox";
import type { OutputArtifact } from "../../apis/pipelines/common.ts";
import { defaultRetryPolicy, type PipelineStep, type StepRetry } from "../../apis/pipelines/pipeline.ts";
import type { PipelineDefinition, ProviderConfig, RunDefinition, RunScheduleDefinition } from "../backend.ts";
import { mergeNamed, type Named, stepEnvironment } from "../step-env.ts";
import { canonical } from "../version.ts";
import { memoized } from "./memoize.ts";
import { ownerMetadata } from "./names.ts";
import { scheduledHistoryLimit } from "./scheduled-runs.ts";

/** Where every workflow pod finds the Provider's spec (an Argo raw input artifact: no ConfigMap). */
export const providerFilePath = "/slipway/provider.json";
export const apiVersion = "argoproj.io/v1alpha1";

export function providerDocument(provider: ProviderConfig): string {
  return JSON.stringify(
    canonical({ provider: `${provider.key.namespace}/${provider.key.name}`, ...provider.spec }),
  );
}

export const stepTemplate = (step: string) => `step-${step}`;

/**
 * A step's retry as Argo's template `retryStrategy` (RetryStrategy and Backoff in
 * pkg/apis/workflow/v1alpha1/workflow_types.go, argo-workflows v4): `limit` and `backoff.factor` are
 * IntOrString (the controller reads the factor as an integer), the durations strings Go's
 * time.ParseDuration reads; `retryPolicy` written out although OnFailure is Argo's default, so the
 * Workflow says what it does.
 */
export function retryStrategy(retry: StepRetry) {
  const backoff = retry.backoff;
  return {
    limit: retry.limit,
    retryPolicy: retry.policy ?? defaultRetryPolicy,
    ...(backoff
      ? {
          backoff: {
            duration: backoff.duration,
            ...(backoff.factor === undefined ? {} : { factor: backoff.factor }),
            ...(backoff.maxDuration === undefined ? {} : { maxDuration: backoff.maxDuration }),
          },
        }
      : {}),
  };
}

function containerTemplate(
  step: PipelineStep,
  pipeline: PipelineDefinition,
  provider: ProviderConfig,
  outputs: Static<typeof OutputArtifact>[],
) {
  const env = stepEnvironment(
    pipeline.spec.env,
    step.env,
    provider.spec.defaultBeamArgs,
    pipeline.spec.beamArgs,
  );
  const artifacts = outputs
    .map((output) => output.path.split(":"))
    .filter(([stepName]) => stepName === step.name)
    .map(([, artifact]) => ({ name: artifact, path: `/slipway/outputs/${artifact}` }));
  return {
    name: stepTemplate(step.name),
    inputs: {
      artifacts: [{ name: "provider", path: providerFilePath, raw: { data: providerDocument(provider) } }],
    },
    ...(artifacts.length ? { outputs: { artifacts } } : {}),
    ...(step.retry ? { retryStrategy: retryStrategy(step.retry) } : {}),
    container: {
      image: step.image ?? pipeline.spec.image,
      ...(step.command ? { command: step.command } : {}),
      ...(step.args ? { args: step.args } : {}),
      ...(env.length ? { env } : {}),
      ...(step.resources ? { resources: step.resources } : {}),
    },
  };
}

/** An Argo workflow spec: a DAG of the pipeline's steps, each getting the Provider at /slipway/provider.json. */
export function workflowSpec(
  pipeline: PipelineDefinition,
  provider: ProviderConfig,
  run: { parameters?: Named[]; artifacts?: Static<typeof OutputArtifact>[] } = {},
) {
  const defaults = (pipeline.spec.parameters ?? []).map((p) => ({ name: p.name, value: p.default ?? "" }));
  const parameters = mergeNamed(defaults, run.parameters);
  return {
    entrypoint: "pipeline",
    ...(provider.spec.serviceAccount ? { serviceAccountName: provider.spec.serviceAccount } : {}),
    ...(parameters.length ? { arguments: { parameters } } : {}),
    templates: [
      {
        name: "pipeline",
        dag: {
          tasks: pipeline.spec.steps.map((step) => ({
            name: step.name,
            template: stepTemplate(step.name),
            ...(step.dependsOn?.length ? { dependencies: step.dependsOn } : {}),
          })),
        },
      },
      ...pipeline.spec.steps.map((step) => containerTemplate(step, pipeline, provider, run.artifacts ?? [])),
    ],
  };
}

export function workflowTemplate(name: string, pipeline: PipelineDefinition, provider: ProviderConfig) {
  return {
    apiVersion,
    kind: "WorkflowTemplate",
    metadata: { name, namespace: provider.key.namespace, ...ownerMetadata(pipeline.owner, pipeline.version) },
    spec: workflowSpec(pipeline, provider),
  };
}

function runMetadata(run: RunDefinition) {
  const metadata = ownerMetadata(run.owner, run.pipeline.version);
  if (run.experimentName)
    metadata.labels["pipelines.slipway.dev/experiment"] = run.experimentName.slice(0, 63);
  return metadata;
}

export function workflow(name: string, run: RunDefinition, provider: ProviderConfig) {
  return {
    apiVersion,
    kind: "Workflow",
    metadata: { name, namespace: provider.key.namespace, ...runMetadata(run) },
    spec: memoized(workflowSpec(run.pipeline, provider, run), run, provider, stepTemplate),
  };
}

/** Whether the schedule is active at `now` (outside startTime..endTime the CronWorkflow is suspended). */
export function scheduleActive(schedule: { startTime?: string; endTime?: string }, now: number): boolean {
  if (schedule.startTime && now < Date.parse(schedule.startTime)) return false;
  if (schedule.endTime && now >= Date.parse(schedule.endTime)) return false;
  return true;
}

export function cronWorkflow(
  name: string,
  schedule: RunScheduleDefinition,
  provider: ProviderConfig,
  now: number,
) {
  const metadata = runMetadata(schedule);
  return {
    apiVersion,
    kind: "CronWorkflow",
    metadata: { name, namespace: provider.key.namespace, ...metadata },
    spec: {
      schedules: [schedule.schedule.cronExpression],
      timezone: "UTC",
      suspend: !scheduleActive(schedule.schedule, now),
      concurrencyPolicy: schedule.concurrencyPolicy,
      // without it Argo starts no missed run; with it, the latest one due within it
      ...(schedule.catchUp ? { startingDeadlineSeconds: schedule.startingDeadlineSeconds } : {}),
      workflowMetadata: { labels: metadata.labels, annotations: metadata.annotations },
      // finished Workflows stay long enough for their completion to be recorded (src/pipelines/events/scheduled.ts)
      successfulJobsHistoryLimit: scheduledHistoryLimit,
      failedJobsHistoryLimit: scheduledHistoryLimit,
      workflowSpec: memoized(
        workflowSpec(schedule.pipeline, provider, schedule),
        schedule,
        provider,
        stepTemplate,
      ),
    },
  };
}
