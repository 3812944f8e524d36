/** Pure builders of Argo objects from pipeline resources (the argo backend writes them). */
import type { Static } from "@sinclair/typebox";
import type { OutputArtifact } from "../../apis/pipelines/common.ts";
import { defaultRetryPolicy, type PipelineStep, type StepRetry } from "../../apis/pipelines/pipeline.ts";
import type { PipelineDefinition, ProviderConfig, RunDefinition, RunScheduleDefinition } from "../backend.ts";
import { mergeNamed, type Named, stepEnvironment } from "../step-env.ts";
import {
  inputArtifactPath,
  outputPath,
  outputsDirectory,
  stepDependencies,
  stepIoProblem,
} from "../step-io.ts";
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

const outputsVolume = "slipway-outputs";

/**
 * A step's inputs and outputs as Argo's (Inputs, Outputs, Parameter.valueFrom.path and Artifact in
 * pkg/apis/workflow/v1alpha1/workflow_types.go, argo-workflows v4): an output parameter is the
 * content of the file at `valueFrom.path`, an output artifact the file or directory at `path`,
 * uploaded by Argo's executor to the artifact repository the controller is configured with (the
 * platform's object store: workflowControllerConfigMap's `artifactRepository`), and an input artifact
 * downloaded from it to `path` before the step starts. Outputs are written to an emptyDir mounted at
 * /slipway/outputs: Argo's docs/empty-dir.md (a template's `volumes`, the main container's
 * `volumeMounts`) for outputs read by the emissary executor, and the directory exists for the step.
 */
function stepIo(step: PipelineStep, runArtifacts: string[]) {
  const declared = step.outputs?.artifacts ?? [];
  const artifacts = [
    ...declared.map((artifact) => ({ name: artifact.name, path: outputPath(artifact.name) })),
    // the Run's own `<step>:<artifact>` (docs/pipelines.md): at the same place, if the step does not declare it
    ...runArtifacts
      .filter((name) => !declared.some((artifact) => artifact.name === name))
      .map((name) => ({ name, path: outputPath(name) })),
  ];
  const parameters = (step.outputs?.parameters ?? []).map((parameter) => ({
    name: parameter.name,
    valueFrom: { path: outputPath(parameter.name) },
  }));
  const declaresOutputs = declared.length > 0 || parameters.length > 0;
  return {
    inputParameters: (step.inputs?.parameters ?? []).map((input) => ({ name: input.name })),
    inputArtifacts: (step.inputs?.artifacts ?? []).map((input) => ({
      name: input.name,
      path: inputArtifactPath(input.name),
    })),
    outputs:
      artifacts.length || parameters.length
        ? {
            ...(parameters.length ? { parameters } : {}),
            ...(artifacts.length ? { artifacts } : {}),
          }
        : undefined,
    volumes: declaresOutputs ? [{ name: outputsVolume, emptyDir: {} }] : [],
    volumeMounts: declaresOutputs ? [{ name: outputsVolume, mountPath: outputsDirectory }] : [],
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
  const runArtifacts = outputs
    .map((output) => output.path.split(":"))
    .filter(([stepName]) => stepName === step.name)
    .map(([, artifact]) => artifact as string);
  const io = stepIo(step, runArtifacts);
  return {
    name: stepTemplate(step.name),
    inputs: {
      ...(io.inputParameters.length ? { parameters: io.inputParameters } : {}),
      artifacts: [
        { name: "provider", path: providerFilePath, raw: { data: providerDocument(provider) } },
        ...io.inputArtifacts,
      ],
    },
    ...(io.outputs ? { outputs: io.outputs } : {}),
    ...(step.retry ? { retryStrategy: retryStrategy(step.retry) } : {}),
    ...(io.volumes.length ? { volumes: io.volumes } : {}),
    container: {
      image: step.image ?? pipeline.spec.image,
      ...(step.command ? { command: step.command } : {}),
      ...(step.args ? { args: step.args } : {}),
      ...(env.length ? { env } : {}),
      ...(step.resources ? { resources: step.resources } : {}),
      ...(io.volumeMounts.length ? { volumeMounts: io.volumeMounts } : {}),
    },
  };
}

/**
 * A DAG task's `arguments` for the step's inputs, with Argo's DAG tags (docs/variables.md, "DAG
 * Templates"): `{{tasks.<task>.outputs.parameters.<name>}}` as a parameter's value, an artifact
 * `from: {{tasks.<task>.outputs.artifacts.<name>}}`, and `{{workflow.parameters.<name>}}` for the
 * Pipeline's parameters. The producers are in `dependencies` (stepDependencies), as Argo requires of
 * a task whose outputs another reads.
 */
function taskArguments(step: PipelineStep) {
  const parameters = (step.inputs?.parameters ?? []).map((input) => ({
    name: input.name,
    value:
      input.from.parameter !== undefined
        ? `{{workflow.parameters.${input.from.parameter}}}`
        : `{{tasks.${input.from.step}.outputs.parameters.${input.from.output}}}`,
  }));
  const artifacts = (step.inputs?.artifacts ?? []).map((input) => ({
    name: input.name,
    from: `{{tasks.${input.from.step}.outputs.artifacts.${input.from.output}}}`,
  }));
  return parameters.length || artifacts.length
    ? {
        arguments: {
          ...(parameters.length ? { parameters } : {}),
          ...(artifacts.length ? { artifacts } : {}),
        },
      }
    : {};
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
          tasks: pipeline.spec.steps.map((step) => {
            const dependencies = stepDependencies(step);
            return {
              name: step.name,
              template: stepTemplate(step.name),
              ...(dependencies.length ? { dependencies } : {}),
              ...taskArguments(step),
            };
          }),
        },
      },
      ...pipeline.spec.steps.map((step) => containerTemplate(step, pipeline, provider, run.artifacts ?? [])),
    ],
  };
}

/** Why Argo could not run the Pipeline's steps (a reference or placeholder it would fail on, a cycle), naming the field. */
export function argoPipelineProblem(pipeline: PipelineDefinition): string | undefined {
  const problem = stepIoProblem(pipeline.spec);
  return problem && `${problem.field}: ${problem.message}`;
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
