/** The checks on a Pipeline's steps that KFP's DAG needs: unique names, images, known dependencies, inputs and outputs, no cycle. */
import type { Pipeline, PipelineStep } from "../../apis/pipelines/pipeline.ts";
import { stepIoProblem } from "../step-io.ts";
import { CompileError } from "./errors.ts";
import { taskName } from "./names.ts";

type Spec = Pipeline["spec"];

const stepField = (index: number) => `spec.steps[${index}]`;

function checkNames(steps: PipelineStep[]): void {
  const byTask = new Map<string, string>();
  steps.forEach((step, index) => {
    const task = taskName(step.name);
    if (!task)
      throw new CompileError(`${stepField(index)}.name`, "KFP needs a letter or digit in a task name");
    const other = byTask.get(task);
    if (other !== undefined)
      throw new CompileError(
        `${stepField(index)}.name`,
        other === step.name
          ? `another step is named ${step.name}`
          : `${step.name} and ${other} are the same KFP task name ${task}`,
      );
    byTask.set(task, step.name);
  });
}

function checkImagesAndDependencies(spec: Spec): void {
  const names = new Set(spec.steps.map((step) => step.name));
  spec.steps.forEach((step, index) => {
    if (!(step.image ?? spec.image))
      throw new CompileError(
        `${stepField(index)}.image`,
        "every step needs an image: set spec.image or the step's image",
      );
    for (const [i, dependency] of (step.dependsOn ?? []).entries()) {
      const field = `${stepField(index)}.dependsOn[${i}]`;
      if (dependency === step.name)
        throw new CompileError(field, `step ${step.name} cannot depend on itself`);
      if (!names.has(dependency))
        throw new CompileError(field, `${dependency} names no step of this pipeline`);
    }
  });
}

/** Throws a CompileError naming the first step field KFP cannot take. */
export function checkSteps(spec: Spec): void {
  checkNames(spec.steps);
  checkImagesAndDependencies(spec);
  const problem = stepIoProblem(spec);
  if (problem) throw new CompileError(problem.field, problem.message);
}
