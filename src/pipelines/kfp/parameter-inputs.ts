/** A Pipeline's parameters as the IR's input parameters: the root's, and each step's. */
import type { Pipeline, PipelineStep } from "../../apis/pipelines/pipeline.ts";
import { commandTexts } from "../step-io.ts";
import { CompileError } from "./errors.ts";
import type { ParameterType, ParameterValue } from "./ir.ts";
import { isParameterName, kfpParameterName } from "./names.ts";
import { parameterType, referencedParameters, typedValue } from "./parameters.ts";

export interface InputParameter {
  /** As in the Pipeline's spec (and a Run's parameters). */
  name: string;
  /** As in the IR (and the backend's runtime parameters). */
  kfpName: string;
  type: ParameterType;
  defaultValue?: ParameterValue;
}

/** The root's inputs; throws a CompileError naming a parameter KFP cannot take. */
export function inputParameters(spec: Pipeline["spec"]): InputParameter[] {
  const byKfpName = new Map<string, string>();
  return (spec.parameters ?? []).map((parameter, index) => {
    const field = `spec.parameters[${index}].name`;
    const kfpName = kfpParameterName(parameter.name);
    if (!isParameterName(kfpName))
      throw new CompileError(
        field,
        `KFP parameter names are Python identifiers (letters, digits and _, not first a digit, not a keyword): ${JSON.stringify(parameter.name)} would be ${JSON.stringify(kfpName)}`,
      );
    const other = byKfpName.get(kfpName);
    if (other !== undefined)
      throw new CompileError(field, `${parameter.name} and ${other} are the same KFP parameter ${kfpName}`);
    byKfpName.set(kfpName, parameter.name);
    const type = parameterType(parameter.default);
    const input: InputParameter = { name: parameter.name, kfpName, type };
    if (parameter.default !== undefined) input.defaultValue = typedValue(type, parameter.default);
    return input;
  });
}

/** The parameters a step's command and args refer to; an unknown one is a CompileError naming the arg. */
export function stepInputs(
  step: PipelineStep,
  parameters: InputParameter[],
  field: string,
): InputParameter[] {
  const byName = new Map(parameters.map((p) => [p.name, p]));
  const used = new Set<InputParameter>();
  for (const { text, at } of commandTexts(step, field))
    for (const name of referencedParameters(text)) {
      const parameter = byName.get(name);
      if (!parameter) throw new CompileError(at, `${name} names no parameter in spec.parameters`);
      used.add(parameter);
    }
  return [...used];
}
