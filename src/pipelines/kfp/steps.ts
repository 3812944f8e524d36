/** The checks on a Pipeline's steps that KFP's DAG needs: unique names, images, known dependencies, no cycle. */
import type { Pipeline, PipelineStep } from "../../apis/pipelines/pipeline.ts";
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

/** The first cycle of dependsOn, as the step names along it (first = last), or undefined. */
export function findCycle(steps: PipelineStep[]): string[] | undefined {
  const dependsOn = new Map(steps.map((step) => [step.name, step.dependsOn ?? []]));
  const done = new Set<string>();
  const visit = (name: string, path: string[]): string[] | undefined => {
    const seen = path.indexOf(name);
    if (seen >= 0) return [...path.slice(seen), name];
    if (done.has(name)) return undefined;
    for (const next of dependsOn.get(name) ?? []) {
      const cycle = visit(next, [...path, name]);
      if (cycle) return cycle;
    }
    done.add(name);
    return undefined;
  };
  for (const step of steps) {
    const cycle = visit(step.name, []);
    if (cycle) return cycle;
  }
  return undefined;
}

/** Throws a CompileError naming the first step field KFP cannot take. */
export function checkSteps(spec: Spec): void {
  checkNames(spec.steps);
  checkImagesAndDependencies(spec);
  const cycle = findCycle(spec.steps);
  if (cycle) {
    const index = spec.steps.findIndex((step) => step.name === cycle[0]);
    throw new CompileError(`${stepField(index)}.dependsOn`, `a cycle: ${cycle.join(" → ")}`);
  }
}
