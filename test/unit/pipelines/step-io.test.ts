import { describe, expect, it } from "vitest";
import type { Pipeline } from "../../../src/apis/pipelines/pipeline.ts";
import { argoPipelineProblem, workflowSpec } from "../../../src/pipelines/argo/workflow.ts";
import type { PipelineDefinition, ProviderConfig } from "../../../src/pipelines/backend.ts";
import {
  findCycle,
  ioReferences,
  stepDependencies,
  stepIoProblem,
  withDeclaredOutputs,
} from "../../../src/pipelines/step-io.ts";

const provider: ProviderConfig = {
  key: { namespace: "ml", name: "argo" },
  spec: { type: "argo" },
  version: "p1",
};

/** prepare → (rows, dataset) → train (+ the pipeline's lr) → (model, score) → evaluate; no dependsOn. */
const ioSpec: Pipeline["spec"] = {
  provider: "ml/argo",
  image: "img:1",
  parameters: [{ name: "learning-rate", default: "0.1" }],
  steps: [
    {
      name: "prepare",
      args: ["{{outputs.parameters.rows.path}}", "--out={{outputs.artifacts.dataset.path}}"],
      outputs: { parameters: [{ name: "rows" }], artifacts: [{ name: "dataset" }] },
    },
    {
      name: "train",
      args: [
        "--rows={{inputs.parameters.rows}}",
        "{{inputs.artifacts.data.path}}",
        "--lr={{inputs.parameters.lr}}",
        "{{outputs.artifacts.model.path}}",
      ],
      inputs: {
        parameters: [
          { name: "rows", from: { step: "prepare", output: "rows" } },
          { name: "lr", from: { parameter: "learning-rate" } },
        ],
        artifacts: [{ name: "data", from: { step: "prepare", output: "dataset" } }],
      },
      outputs: { parameters: [{ name: "score" }], artifacts: [{ name: "model" }] },
    },
    {
      name: "evaluate",
      dependsOn: ["prepare"],
      args: ["{{inputs.artifacts.model.path}}", "{{inputs.parameters.score}}"],
      inputs: {
        parameters: [{ name: "score", from: { step: "train", output: "score" } }],
        artifacts: [{ name: "model", from: { step: "train", output: "model" } }],
      },
    },
  ],
};

const definition = (spec: Pipeline["spec"]): PipelineDefinition => ({
  owner: { object: {}, kind: "Pipeline", namespace: "team", name: "io" },
  name: "io",
  version: "v1",
  spec,
});

// biome-ignore lint/suspicious/noExplicitAny: reading nested template fields
type Any = any;

describe("inputs and outputs on argo", () => {
  const spec = workflowSpec(definition(ioSpec), provider, {
    artifacts: [
      { name: "trained", path: "train:model" },
      { name: "log", path: "train:log" },
    ],
  });
  const template = (name: string) => spec.templates.find((t) => t.name === name) as Any;

  it("makes each producer of an input a dependency (no dependsOn needed), after the step's dependsOn", () => {
    expect(template("pipeline").dag.tasks.map((t: Any) => [t.name, t.dependencies])).toEqual([
      ["prepare", undefined],
      ["train", ["prepare"]],
      ["evaluate", ["prepare", "train"]],
    ]);
  });

  it("passes outputs as DAG task arguments with Argo's tags, and the Pipeline's parameters as workflow parameters", () => {
    const tasks = template("pipeline").dag.tasks;
    expect(tasks[0].arguments).toBeUndefined();
    expect(tasks[1].arguments).toEqual({
      parameters: [
        { name: "rows", value: "{{tasks.prepare.outputs.parameters.rows}}" },
        { name: "lr", value: "{{workflow.parameters.learning-rate}}" },
      ],
      artifacts: [{ name: "data", from: "{{tasks.prepare.outputs.artifacts.dataset}}" }],
    });
    expect(tasks[2].arguments).toEqual({
      parameters: [{ name: "score", value: "{{tasks.train.outputs.parameters.score}}" }],
      artifacts: [{ name: "model", from: "{{tasks.train.outputs.artifacts.model}}" }],
    });
  });

  it("declares outputs at /slipway/outputs (an emptyDir), inputs as the template's, the Provider artifact kept", () => {
    const train = template("step-train");
    expect(train.inputs).toEqual({
      parameters: [{ name: "rows" }, { name: "lr" }],
      artifacts: [
        expect.objectContaining({ name: "provider", path: "/slipway/provider.json" }),
        { name: "data", path: "/slipway/inputs/data" },
      ],
    });
    // the Run's `train:model` is the declared output (once); its `train:log` is added beside it
    expect(train.outputs).toEqual({
      parameters: [{ name: "score", valueFrom: { path: "/slipway/outputs/score" } }],
      artifacts: [
        { name: "model", path: "/slipway/outputs/model" },
        { name: "log", path: "/slipway/outputs/log" },
      ],
    });
    expect(train.volumes).toEqual([{ name: "slipway-outputs", emptyDir: {} }]);
    expect(train.container.volumeMounts).toEqual([
      { name: "slipway-outputs", mountPath: "/slipway/outputs" },
    ]);
    // placeholders are Argo's own: passed through for its controller to substitute
    expect(train.container.args).toEqual(ioSpec.steps[1]?.args);
    const evaluate = template("step-evaluate");
    expect(evaluate.outputs).toBeUndefined();
    expect(evaluate.volumes).toBeUndefined();
    expect(evaluate.container.volumeMounts).toBeUndefined();
  });

  it("a step with no inputs and outputs renders as before (no volume, only the Provider artifact)", () => {
    const plain = workflowSpec(definition({ provider: "p", image: "i", steps: [{ name: "a" }] }), provider);
    const a = plain.templates.find((t) => t.name === "step-a") as Any;
    expect(a.inputs).toEqual({ artifacts: [expect.objectContaining({ name: "provider" })] });
    expect(a.outputs).toBeUndefined();
    expect(a.volumes).toBeUndefined();
  });
});

describe("step inputs and outputs, checked for every backend", () => {
  it("finds the placeholders of a text", () => {
    expect(
      ioReferences("a {{inputs.parameters.x}} {{ outputs.artifacts.m.path }} {{workflow.parameters.p}}"),
    ).toEqual([
      { direction: "inputs", kind: "parameters", name: "x", path: false },
      { direction: "outputs", kind: "artifacts", name: "m", path: true },
    ]);
  });

  it("a step's dependencies are its dependsOn and its inputs' producers, each once", () => {
    expect(stepDependencies(ioSpec.steps[2] as Any)).toEqual(["prepare", "train"]);
    expect(stepIoProblem(ioSpec)).toBeUndefined();
    expect(argoPipelineProblem(definition(ioSpec))).toBeUndefined();
  });

  const withStep = (index: number, change: Record<string, unknown>): Pipeline["spec"] => ({
    ...ioSpec,
    steps: ioSpec.steps.map((step, i) => (i === index ? { ...step, ...change } : step)),
  });
  const trainInputs = ioSpec.steps[1]?.inputs as Any;

  it.each([
    [
      "an unknown step",
      withStep(1, {
        inputs: { ...trainInputs, artifacts: [{ name: "data", from: { step: "fetch", output: "x" } }] },
      }),
      "spec.steps[1].inputs.artifacts[0].from.step",
      "fetch names no step of this pipeline",
    ],
    [
      "an output the step does not declare",
      withStep(1, {
        inputs: {
          ...trainInputs,
          parameters: [{ name: "rows", from: { step: "prepare", output: "count" } }],
        },
      }),
      "spec.steps[1].inputs.parameters[0].from.output",
      "step prepare has no output parameter count (its outputs.parameters)",
    ],
    [
      "an artifact where the step has a parameter",
      withStep(1, {
        inputs: { ...trainInputs, artifacts: [{ name: "data", from: { step: "prepare", output: "rows" } }] },
      }),
      "spec.steps[1].inputs.artifacts[0].from.output",
      "step prepare has no output artifact rows (its outputs.artifacts)",
    ],
    [
      "its own output",
      withStep(1, {
        inputs: { ...trainInputs, parameters: [{ name: "s", from: { step: "train", output: "score" } }] },
      }),
      "spec.steps[1].inputs.parameters[0].from.step",
      "step train cannot take its own output as an input",
    ],
    [
      "an unknown pipeline parameter",
      withStep(1, { inputs: { ...trainInputs, parameters: [{ name: "lr", from: { parameter: "lr" } }] } }),
      "spec.steps[1].inputs.parameters[0].from.parameter",
      "lr names no parameter in spec.parameters",
    ],
    [
      "a placeholder of nothing declared",
      withStep(0, { args: ["{{outputs.parameters.count.path}}"] }),
      "spec.steps[0].args[0]",
      "{{outputs.parameters.count.path}}: the step declares no outputs.parameters named count",
    ],
    [
      "an output placeholder without .path",
      withStep(0, { command: ["x", "{{outputs.artifacts.dataset}}"] }),
      "spec.steps[0].command[1]",
      "{{outputs.artifacts.dataset}}: a step reads an artifact and writes an output at a path: {{outputs.artifacts.dataset.path}}",
    ],
    [
      "an input parameter with .path",
      withStep(1, { args: ["{{inputs.parameters.rows.path}}"] }),
      "spec.steps[1].args[0]",
      "{{inputs.parameters.rows.path}}: an input parameter is a value, not a file: {{inputs.parameters.rows}}",
    ],
    [
      "an input and an output of one name",
      withStep(1, { outputs: { parameters: [{ name: "rows" }] } }),
      "spec.steps[1].outputs.parameters[0].name",
      "rows is also one of inputs.parameters: a step's inputs and outputs share one namespace",
    ],
    [
      "a cycle through inputs",
      withStep(0, { dependsOn: ["train"] }),
      "spec.steps[0]",
      "a cycle: prepare → train → prepare (dependsOn and inputs)",
    ],
  ])("refuses %s, naming the field", (_, spec, field, message) => {
    expect(stepIoProblem(spec)).toEqual({ field, message });
    expect(argoPipelineProblem(definition(spec))).toBe(`${field}: ${message}`);
  });

  it("finds a cycle made only of inputs", () => {
    const cyclic = withStep(0, {
      inputs: { parameters: [{ name: "s", from: { step: "evaluate", output: "x" } }] },
    }).steps.map((step) => (step.name === "evaluate" ? { ...step, dependsOn: undefined } : step));
    expect(findCycle(cyclic)).toEqual(["prepare", "evaluate", "train", "prepare"]);
  });

  it("a Run's completion looks for every declared output artifact, and the Run's own names first", () => {
    expect(withDeclaredOutputs([{ name: "trained", path: "train:model" }], ioSpec)).toEqual([
      { name: "trained", path: "train:model" },
      { name: "prepare:dataset", path: "prepare:dataset" },
    ]);
    expect(withDeclaredOutputs([], undefined)).toEqual([]);
  });
});
