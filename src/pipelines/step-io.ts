/**
 * Inputs and outputs between a Pipeline's steps, the same for every backend (pure): which steps a
 * step runs after (its dependsOn and the producers of its inputs), the placeholders its command and
 * args use, and the check of all references (what CEL at the API server cannot do: placeholders,
 * cycles; and the rest again, for `slipway pipelines compile` on a file).
 */
import type { Pipeline, PipelineStep } from "../apis/pipelines/pipeline.ts";

type Spec = Pipeline["spec"];

/** Where a problem is (`spec.steps[1].inputs.parameters[0].from.step`) and the rule. */
export interface IoProblem {
  field: string;
  message: string;
}

/**
 * A step's placeholders, Argo's template tags (docs/variables.md, container templates): an input
 * parameter's value `{{inputs.parameters.<n>}}`, the path of an input artifact
 * `{{inputs.artifacts.<n>.path}}`, and the files the step writes its outputs to
 * `{{outputs.parameters.<n>.path}}`, `{{outputs.artifacts.<n>.path}}`.
 */
export const ioPlaceholder = /\{\{\s*(inputs|outputs)\.(parameters|artifacts)\.([^}\s.]+)(\.path)?\s*\}\}/g;

export interface IoReference {
  direction: "inputs" | "outputs";
  kind: "parameters" | "artifacts";
  name: string;
  /** Whether the placeholder ends with `.path`. */
  path: boolean;
}

export function ioReferences(text: string): IoReference[] {
  return [...text.matchAll(ioPlaceholder)].map((match) => ({
    direction: match[1] as IoReference["direction"],
    kind: match[2] as IoReference["kind"],
    name: match[3] as string,
    path: match[4] !== undefined,
  }));
}

/** What a step's dependencies are read from (the API's step, or the UI's view of it). */
export interface DependencySource {
  dependsOn?: string[];
  inputs?: { parameters?: { from: { step?: string } }[]; artifacts?: { from: { step: string } }[] };
}

/** The steps `step` runs after: its dependsOn, then the producers of its inputs, each once. */
export function stepDependencies(step: DependencySource): string[] {
  const producers = [
    ...(step.inputs?.parameters ?? []).map((input) => input.from.step),
    ...(step.inputs?.artifacts ?? []).map((input) => input.from.step),
  ].filter((name): name is string => name !== undefined);
  return [...new Set([...(step.dependsOn ?? []), ...producers])];
}

/** Where a step's output is written in its container on argo (an emptyDir mounted at `outputsDirectory`). */
export const outputsDirectory = "/slipway/outputs";
export const outputPath = (name: string) => `${outputsDirectory}/${name}`;
/** Where an input artifact is put in the step's container on argo. */
export const inputArtifactPath = (name: string) => `/slipway/inputs/${name}`;

/** The Pipeline's output artifacts as a Run's `<step>:<artifact>` paths (recorded in every Run's status). */
export function declaredOutputArtifacts(spec: Pick<Spec, "steps">): { name: string; path: string }[] {
  return spec.steps.flatMap((step) =>
    (step.outputs?.artifacts ?? []).map((artifact) => {
      const path = `${step.name}:${artifact.name}`;
      return { name: path, path };
    }),
  );
}

/**
 * What a Run's completion looks for: the artifacts the Run names, then every output artifact the
 * Pipeline declares under its `<step>:<artifact>` (unless the Run names that one itself).
 */
export function withDeclaredOutputs(
  wanted: { name: string; path: string }[],
  spec: Pick<Spec, "steps"> | undefined,
): { name: string; path: string }[] {
  const named = new Set(wanted.map((artifact) => artifact.path));
  const declared = spec ? declaredOutputArtifacts(spec) : [];
  return [...wanted, ...declared.filter((artifact) => !named.has(artifact.path))];
}

/** The first cycle of the steps' dependencies (dependsOn and inputs), as step names (first = last). */
export function findCycle(steps: PipelineStep[]): string[] | undefined {
  const dependencies = new Map(steps.map((step) => [step.name, stepDependencies(step)]));
  const done = new Set<string>();
  const visit = (name: string, path: string[]): string[] | undefined => {
    const seen = path.indexOf(name);
    if (seen >= 0) return [...path.slice(seen), name];
    if (done.has(name)) return undefined;
    for (const next of dependencies.get(name) ?? []) {
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

class Found extends Error {
  readonly problem: IoProblem;
  constructor(field: string, message: string) {
    super(message);
    this.problem = { field, message };
  }
}

function checkInputs(spec: Spec, step: PipelineStep, field: string): void {
  const steps = new Map(spec.steps.map((s) => [s.name, s]));
  const parameters = new Set((spec.parameters ?? []).map((p) => p.name));
  const producer = (name: string, at: string) => {
    if (name === step.name) throw new Found(at, `step ${step.name} cannot take its own output as an input`);
    const found = steps.get(name);
    if (!found) throw new Found(at, `${name} names no step of this pipeline`);
    return found;
  };
  step.inputs?.parameters?.forEach((input, i) => {
    const at = `${field}.inputs.parameters[${i}].from`;
    if (input.from.parameter !== undefined) {
      if (!parameters.has(input.from.parameter))
        throw new Found(`${at}.parameter`, `${input.from.parameter} names no parameter in spec.parameters`);
      return;
    }
    const from = producer(input.from.step ?? "", `${at}.step`);
    if (!from.outputs?.parameters?.some((output) => output.name === input.from.output))
      throw new Found(
        `${at}.output`,
        `step ${from.name} has no output parameter ${input.from.output} (its outputs.parameters)`,
      );
  });
  step.inputs?.artifacts?.forEach((input, i) => {
    const at = `${field}.inputs.artifacts[${i}].from`;
    const from = producer(input.from.step, `${at}.step`);
    if (!from.outputs?.artifacts?.some((output) => output.name === input.from.output))
      throw new Found(
        `${at}.output`,
        `step ${from.name} has no output artifact ${input.from.output} (its outputs.artifacts)`,
      );
  });
}

function checkNames(step: PipelineStep, field: string): void {
  const seen = new Map<string, string>();
  const lists = [
    ["inputs.parameters", step.inputs?.parameters],
    ["inputs.artifacts", step.inputs?.artifacts],
    ["outputs.parameters", step.outputs?.parameters],
    ["outputs.artifacts", step.outputs?.artifacts],
  ] as const;
  for (const [list, items] of lists)
    items?.forEach((item, i) => {
      const other = seen.get(item.name);
      if (other)
        throw new Found(
          `${field}.${list}[${i}].name`,
          `${item.name} is also one of ${other}: a step's inputs and outputs share one namespace`,
        );
      seen.set(item.name, list);
    });
}

const declared = (step: PipelineStep, reference: IoReference) =>
  (step[reference.direction]?.[reference.kind] ?? []).some((item) => item.name === reference.name);

function placeholderProblem(step: PipelineStep, reference: IoReference): string | undefined {
  const tag = `{{${reference.direction}.${reference.kind}.${reference.name}${reference.path ? ".path" : ""}}}`;
  if (!declared(step, reference))
    return `${tag}: the step declares no ${reference.direction}.${reference.kind} named ${reference.name}`;
  const wantsPath = !(reference.direction === "inputs" && reference.kind === "parameters");
  if (wantsPath && !reference.path)
    return `${tag}: a step reads an artifact and writes an output at a path: {{${reference.direction}.${reference.kind}.${reference.name}.path}}`;
  if (!wantsPath && reference.path)
    return `${tag}: an input parameter is a value, not a file: {{inputs.parameters.${reference.name}}}`;
  return undefined;
}

/** Every text of a step's command, then of its args, with the field it stands at (`<field>.args[1]`). */
export function commandTexts(
  step: Pick<PipelineStep, "command" | "args">,
  field: string,
): { text: string; at: string }[] {
  return (["command", "args"] as const).flatMap((list) =>
    (step[list] ?? []).map((text, i) => ({ text, at: `${field}.${list}[${i}]` })),
  );
}

function checkPlaceholders(step: PipelineStep, field: string): void {
  for (const { text, at } of commandTexts(step, field))
    for (const reference of ioReferences(text)) {
      const problem = placeholderProblem(step, reference);
      if (problem) throw new Found(at, problem);
    }
}

/** The first problem of the steps' inputs and outputs, or undefined (every backend refuses a Pipeline with one). */
export function stepIoProblem(spec: Spec): IoProblem | undefined {
  try {
    spec.steps.forEach((step, index) => {
      const field = `spec.steps[${index}]`;
      checkNames(step, field);
      checkInputs(spec, step, field);
      checkPlaceholders(step, field);
    });
  } catch (error) {
    if (error instanceof Found) return error.problem;
    throw error;
  }
  const cycle = findCycle(spec.steps);
  if (!cycle) return undefined;
  const index = spec.steps.findIndex((step) => step.name === cycle[0]);
  return {
    field: `spec.steps[${index}]`,
    message: `a cycle: ${cycle.join(" → ")} (dependsOn and inputs)`,
  };
}
