/**
 * A step's inputs and outputs in KFP's IR, as kfp.dsl compiles a container component whose
 * arguments are `dsl.OutputPath(str)` (an output parameter), `dsl.Output[dsl.Artifact]`,
 * `str` or a pipeline parameter's type (an input parameter) and `dsl.Input[dsl.Artifact]`, called with
 * another task's `.outputs[...]` or a pipeline parameter (kfp 2.17: the component's
 * inputDefinitions/outputDefinitions, the task's taskOutputParameter/taskOutputArtifact/
 * componentInputParameter, and the executor placeholders of kfp/dsl/placeholders.py).
 */
import type { PipelineStep } from "../../apis/pipelines/pipeline.ts";
import { ioPlaceholder } from "../step-io.ts";
import { CompileError } from "./errors.ts";
import type { ArtifactSpec, ComponentSpec, TaskInputArtifact, TaskInputParameter, TaskSpec } from "./ir.ts";
import { kfpParameterName, taskName } from "./names.ts";
import type { InputParameter } from "./parameter-inputs.ts";

/** What kfp.dsl writes for `dsl.Artifact`. */
export const artifactSpec: ArtifactSpec = {
  artifactType: { schemaTitle: "system.Artifact", schemaVersion: "0.0.1" },
};

/** Slipway's (Argo's) I/O placeholders → KFP's: `.path` of an output parameter is its `output_file`. */
export function withIoPlaceholders(text: string): string {
  return text.replace(ioPlaceholder, (_, direction: string, kind: string, name: string) => {
    const base = `$.${direction}.${kind}['${name}']`;
    if (direction === "inputs" && kind === "parameters") return `{{${base}}}`;
    return `{{${base}.${direction === "outputs" && kind === "parameters" ? "output_file" : "path"}}}`;
  });
}

type Definitions = NonNullable<ComponentSpec["inputDefinitions"]>;
type Outputs = NonNullable<ComponentSpec["outputDefinitions"]>;
type TaskInputs = NonNullable<TaskSpec["inputs"]>;

export interface StepIo {
  inputDefinitions: Definitions;
  outputDefinitions: Outputs;
  taskInputs: TaskInputs;
}

const entries = <T>(list: [string, T][]) => (list.length ? Object.fromEntries(list) : undefined);

/**
 * The component's inputs and outputs and the task's inputs for a step: `referenced` are the
 * Pipeline's parameters its command and args name as `{{workflow.parameters.p}}` (kfp.dsl: an
 * argument `p` given the pipeline's `p`), `parameters` all of the Pipeline's. A name two of them
 * share is one argument of a Python function: an error naming the field.
 */
export function stepIo(
  step: PipelineStep,
  referenced: InputParameter[],
  parameters: InputParameter[],
  field: string,
): StepIo {
  const used = new Map(
    referenced.map((p) => [p.kfpName, `{{workflow.parameters.${p.name}}} in command or args`]),
  );
  const claim = (name: string, at: string) => {
    const other = used.get(name);
    if (other)
      throw new CompileError(
        at,
        `${name} is also ${other}: one argument of the KFP component (rename the input or output)`,
      );
    used.set(name, at);
  };
  const inputParameters: [string, { parameterType: InputParameter["type"] }][] = [];
  const taskParameters: [string, TaskInputParameter][] = [];
  step.inputs?.parameters?.forEach((input, i) => {
    claim(input.name, `${field}.inputs.parameters[${i}].name`);
    const from = input.from;
    if (from.parameter !== undefined) {
      const kfpName = kfpParameterName(from.parameter);
      const type = parameters.find((p) => p.name === from.parameter)?.type ?? "STRING";
      inputParameters.push([input.name, { parameterType: type }]);
      taskParameters.push([input.name, { componentInputParameter: kfpName }]);
    } else {
      // an output parameter is a string (OutputPath(str)): so is the input that takes it
      inputParameters.push([input.name, { parameterType: "STRING" }]);
      taskParameters.push([
        input.name,
        {
          taskOutputParameter: {
            outputParameterKey: from.output as string,
            producerTask: taskName(from.step as string),
          },
        },
      ]);
    }
  });
  const inputArtifacts: [string, ArtifactSpec][] = [];
  const taskArtifacts: [string, TaskInputArtifact][] = [];
  step.inputs?.artifacts?.forEach((input, i) => {
    claim(input.name, `${field}.inputs.artifacts[${i}].name`);
    inputArtifacts.push([input.name, artifactSpec]);
    taskArtifacts.push([
      input.name,
      {
        taskOutputArtifact: { outputArtifactKey: input.from.output, producerTask: taskName(input.from.step) },
      },
    ]);
  });
  step.outputs?.parameters?.forEach((output, i) => {
    claim(output.name, `${field}.outputs.parameters[${i}].name`);
  });
  step.outputs?.artifacts?.forEach((output, i) => {
    claim(output.name, `${field}.outputs.artifacts[${i}].name`);
  });
  const outputParameters = (step.outputs?.parameters ?? []).map(
    (output): [string, { parameterType: "STRING" }] => [output.name, { parameterType: "STRING" }],
  );
  const outputArtifacts = (step.outputs?.artifacts ?? []).map((output): [string, ArtifactSpec] => [
    output.name,
    artifactSpec,
  ]);
  return {
    inputDefinitions: { parameters: entries(inputParameters), artifacts: entries(inputArtifacts) },
    outputDefinitions: { parameters: entries(outputParameters), artifacts: entries(outputArtifacts) },
    taskInputs: { parameters: entries(taskParameters), artifacts: entries(taskArtifacts) },
  };
}
