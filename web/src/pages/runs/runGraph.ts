import { stepDependencies } from "../../../../src/pipelines/step-io.ts";
import type { StepNode } from "../../graph/layout.ts";
import type { PipelineStep, RunStepView } from "../../views.ts";

/** The phase shown for a step the backend has not recorded yet. */
export const notStarted = "not started";

/**
 * The steps of a Run's graph (pure): the Pipeline's steps with their dependencies, then any step the
 * backend reports that the Pipeline (as it is now, or unreadable) lacks, without dependencies, so
 * that no recorded step is missing from the graph.
 */
export function runGraphSteps(pipelineSteps: StepNode[], recorded: RunStepView[]): StepNode[] {
  const declared = new Set(pipelineSteps.map((step) => step.name));
  const extra = recorded.filter((step) => !declared.has(step.name)).map((step) => ({ name: step.name }));
  return [...pipelineSteps, ...extra];
}

/** A Pipeline's steps as graph nodes: a step runs after its dependsOn and the steps whose outputs it takes. */
export function pipelineGraphSteps(steps: PipelineStep[]): StepNode[] {
  return steps.map((step) => {
    const dependsOn = stepDependencies(step);
    return dependsOn.length ? { name: step.name, dependsOn } : { name: step.name };
  });
}

/** A step's phase as the backend recorded it, else `not started`. */
export function stepPhase(recorded: RunStepView[], step: string): string {
  return recorded.find((candidate) => candidate.name === step)?.phase ?? notStarted;
}
