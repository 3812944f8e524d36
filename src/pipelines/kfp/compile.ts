/**
 * A Slipway Pipeline compiled to KFP's pipeline spec IR, as the KFP SDK's compiler emits it for the
 * same steps written as `kfp.dsl.container_component`s (one component and executor per step, the
 * pipeline's parameters as the root's inputs, steps' inputs and outputs wired task to task: io.ts). Pure: the same spec gives the same bytes (irJson).
 */

import type { CachePolicy } from "../../apis/pipelines/caching.ts";
import type { Pipeline, PipelineStep } from "../../apis/pipelines/pipeline.ts";
import { canonical } from "../../lib/canonical.ts";
import { stringifyYaml as yamlStringify } from "../../lib/yaml.ts";
import { ownVersion } from "../../platform/catalog.ts";
import { type CachingLevels, effectiveCaching, unhonouredMaxAge } from "../caching.ts";
import { type Named, stepEnvironment } from "../step-env.ts";
import { ioPlaceholder, stepDependencies } from "../step-io.ts";
import { CompileError } from "./errors.ts";
import { type StepIo, stepIo, withIoPlaceholders } from "./io.ts";
import type { ComponentSpec, ContainerSpec, ParameterSpec, PipelineSpec, TaskSpec } from "./ir.ts";
import { componentName, executorLabel, pipelineNamePattern, taskName } from "./names.ts";
import { type InputParameter, inputParameters, stepInputs } from "./parameter-inputs.ts";
import { parameterReference, withPlaceholders } from "./parameters.ts";
import { resourceSpec } from "./resources.ts";
import { retryPolicy } from "./retry.ts";
import { checkSteps } from "./steps.ts";

export interface KfpPipeline {
  /** The Pipeline's `metadata.name`: the IR's `pipelineInfo.name`. */
  name: string;
  spec: Pipeline["spec"];
  /** The Provider's `defaultBeamArgs` (the Pipeline's `beamArgs` override them by name). */
  defaultBeamArgs?: Named[];
  /** The IR's `defaultPipelineRoot` (where KFP writes artifacts when a run names no root). */
  pipelineRoot?: string;
  /** The Provider's `defaultCaching`. */
  defaultCaching?: CachePolicy;
  /** A Run's `spec.caching`: compiled into every task, as the KFP SDK's run-time `enable_caching` does. */
  runCaching?: CachePolicy;
}

export type CompileResult = { ok: true; ir: PipelineSpec } | { ok: false; field: string; error: string };

/** What `sdkVersion` says made the IR (the SDK writes `kfp-<version>`). */
export const sdkVersion = `slipway-${ownVersion}`;

function checkNoReference(text: string, field: string): void {
  if (new RegExp(parameterReference.source).test(text) || new RegExp(ioPlaceholder.source).test(text))
    throw new CompileError(
      field,
      "KFP substitutes parameters, inputs and outputs only in a step's command and args",
    );
}

function stepEnv(input: KfpPipeline, step: PipelineStep, field: string): Named[] {
  for (const [i, item] of (input.spec.env ?? []).entries())
    checkNoReference(item.value, `spec.env[${i}].value`);
  for (const [i, item] of (step.env ?? []).entries())
    checkNoReference(item.value, `${field}.env[${i}].value`);
  return stepEnvironment(input.spec.env, step.env, input.defaultBeamArgs, input.spec.beamArgs);
}

function container(input: KfpPipeline, step: PipelineStep, field: string, kfpNames: Map<string, string>) {
  const image = (step.image ?? input.spec.image) as string;
  checkNoReference(image, `${field}.image`);
  const env = stepEnv(input, step, field);
  const resources = resourceSpec(step, field);
  const spec: ContainerSpec = { image };
  const placeholders = (text: string) => withIoPlaceholders(withPlaceholders(text, kfpNames));
  if (step.command?.length) spec.command = step.command.map(placeholders);
  if (step.args?.length) spec.args = step.args.map(placeholders);
  if (env.length) spec.env = env;
  if (resources) spec.resources = resources;
  return { container: spec };
}

/** `o` without its undefined fields, or undefined when none is left (the IR has no empty messages). */
function present<T extends object>(o: T): T | undefined {
  const kept = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  return Object.keys(kept).length ? (kept as T) : undefined;
}

/**
 * A step's inputs in one part of the IR (the task's inputs, the component's definitions): an entry
 * per Pipeline parameter it refers to, then the step's own; undefined when there are none.
 */
function withPipelineParameters<P, A>(
  inputs: InputParameter[],
  entry: (parameter: InputParameter) => P,
  own: { parameters?: Record<string, P>; artifacts?: A },
): { parameters?: Record<string, P>; artifacts?: A } | undefined {
  const parameters = { ...Object.fromEntries(inputs.map((p) => [p.kfpName, entry(p)])), ...own.parameters };
  return present({
    parameters: Object.keys(parameters).length ? parameters : undefined,
    artifacts: own.artifacts,
  });
}

/** The levels a step's caching comes from (src/pipelines/caching.ts). */
const cachingLevels = (input: KfpPipeline): CachingLevels => ({
  provider: input.defaultCaching,
  pipeline: input.spec,
  run: input.runCaching,
});

function task(
  step: PipelineStep,
  inputs: InputParameter[],
  io: StepIo,
  field: string,
  enableCache: boolean,
): TaskSpec {
  const spec: TaskSpec = {
    // written out either way, as `set_caching_options` compiles it: KFP's default (absent) caches
    cachingOptions: { enableCache },
    componentRef: { name: componentName(step.name) },
    taskInfo: { name: taskName(step.name) },
  };
  const dependencies = stepDependencies(step);
  if (dependencies.length) spec.dependentTasks = [...new Set(dependencies.map(taskName))].sort();
  if (step.retry) spec.retryPolicy = retryPolicy(step.retry, field);
  const taskInputs = withPipelineParameters(
    inputs,
    (p) => ({ componentInputParameter: p.kfpName }),
    io.taskInputs,
  );
  if (taskInputs) spec.inputs = taskInputs;
  return spec;
}

function component(step: PipelineStep, inputs: InputParameter[], io: StepIo): ComponentSpec {
  const spec: ComponentSpec = { executorLabel: executorLabel(step.name) };
  const inputDefinitions = withPipelineParameters(
    inputs,
    (p) => ({ parameterType: p.type }),
    io.inputDefinitions,
  );
  if (inputDefinitions) spec.inputDefinitions = inputDefinitions;
  const outputDefinitions = present(io.outputDefinitions);
  if (outputDefinitions) spec.outputDefinitions = outputDefinitions;
  return spec;
}

function rootInputs(parameters: InputParameter[]): Record<string, ParameterSpec> {
  return Object.fromEntries(
    parameters.map((p) => [
      p.kfpName,
      p.defaultValue === undefined
        ? { parameterType: p.type }
        : { defaultValue: p.defaultValue, isOptional: true, parameterType: p.type },
    ]),
  );
}

function build(input: KfpPipeline): PipelineSpec {
  if (!pipelineNamePattern.test(input.name))
    throw new CompileError("metadata.name", `KFP pipeline names match ${pipelineNamePattern.source}`);
  const parameters = inputParameters(input.spec);
  checkSteps(input.spec);
  const caching = cachingLevels(input);
  const unhonoured = unhonouredMaxAge(caching);
  if (unhonoured) throw new CompileError(unhonoured.field, unhonoured.rule);
  const kfpNames = new Map(parameters.map((p) => [p.name, p.kfpName]));
  const ir: PipelineSpec = {
    components: {},
    deploymentSpec: { executors: {} },
    pipelineInfo: { name: input.name },
    root: { dag: { tasks: {} } },
    schemaVersion: "2.1.0",
    sdkVersion,
  };
  input.spec.steps.forEach((step, index) => {
    const field = `spec.steps[${index}]`;
    const inputs = stepInputs(step, parameters, field);
    const io = stepIo(step, inputs, parameters, field);
    ir.components[componentName(step.name)] = component(step, inputs, io);
    ir.deploymentSpec.executors[executorLabel(step.name)] = container(input, step, field, kfpNames);
    const { enabled } = effectiveCaching(caching, index);
    ir.root.dag.tasks[taskName(step.name)] = task(step, inputs, io, field, enabled);
  });
  if (input.pipelineRoot) ir.defaultPipelineRoot = input.pipelineRoot;
  if (parameters.length) ir.root.inputDefinitions = { parameters: rootInputs(parameters) };
  return canonical(ir) as PipelineSpec;
}

/** The IR of `input`, or the first field KFP cannot take and why. */
export function compilePipeline(input: KfpPipeline): CompileResult {
  try {
    return { ok: true, ir: build(input) };
  } catch (error) {
    if (error instanceof CompileError) return { ok: false, field: error.field, error: error.message };
    throw error;
  }
}

/**
 * A Run's compile failure as its condition says it: a maxAge the Run itself sets (which then applies
 * to every step: the Run's caching comes first) under its own field, anything else under
 * `spec.pipeline` (the Pipeline's field).
 */
export function runCompileError(
  failure: { field: string; error: string },
  pipelineName: string,
  runCaching: CachePolicy | undefined,
): string {
  if (runCaching?.maxAge && failure.field === "spec.caching.maxAge") return failure.error;
  return `spec.pipeline: Pipeline ${pipelineName}: ${failure.error}`;
}

/** The IR as JSON: keys sorted, so the same IR is the same bytes. */
export function irJson(ir: PipelineSpec): string {
  return `${JSON.stringify(canonical(ir), null, 2)}\n`;
}

export function irYaml(ir: PipelineSpec): string {
  return yamlStringify(canonical(ir));
}
