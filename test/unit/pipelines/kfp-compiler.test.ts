import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Pipeline } from "../../../src/apis/pipelines/pipeline.ts";
import {
  type CompileResult,
  compilePipeline,
  irJson,
  type KfpPipeline,
} from "../../../src/pipelines/kfp/compile.ts";
import { readPipelineDocument } from "../../../src/pipelines/kfp/document.ts";
import { kfpName, kfpParameterName } from "../../../src/pipelines/kfp/names.ts";
import { parameterType, typedValue } from "../../../src/pipelines/kfp/parameters.ts";
import { cpuCores, memoryGB } from "../../../src/pipelines/kfp/resources.ts";
import { arbitraryPipelineSpec } from "../../support/kfp-sdk.ts";

type Spec = Pipeline["spec"];

const compiled = (input: KfpPipeline) => {
  const result = compilePipeline(input);
  if (!result.ok) throw new Error(result.error);
  return result.ir;
};

const failure = (spec: Partial<Spec>, name = "p"): Extract<CompileResult, { ok: false }> => {
  const result = compilePipeline({
    name,
    spec: { provider: "kfp", image: "alpine", steps: [{ name: "a" }], ...spec },
  });
  if (result.ok) throw new Error("compiled, but should not have");
  return result;
};

/** Every object's keys in reverse order (the same content, written differently). */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reversedKeys(v)]),
  );
}

describe("compilePipeline: determinism", () => {
  it("gives the same bytes for the same spec, whatever its key order or the order of steps and parameters", () => {
    fc.assert(
      fc.property(arbitraryPipelineSpec, (spec) => {
        const bytes = irJson(compiled({ name: "p", spec }));
        expect(irJson(compiled({ name: "p", spec: structuredClone(spec) }))).toBe(bytes);
        expect(irJson(compiled({ name: "p", spec: reversedKeys(spec) as Spec }))).toBe(bytes);
        const reordered = {
          ...spec,
          steps: [...spec.steps].reverse(),
          parameters: [...(spec.parameters ?? [])].reverse(),
        };
        expect(irJson(compiled({ name: "p", spec: reordered }))).toBe(bytes);
      }),
    );
  });

  it("keeps the order of command, args and env (env may refer to the variables before it)", () => {
    const ir = compiled({
      name: "p",
      spec: {
        provider: "kfp",
        image: "alpine",
        env: [
          { name: "B", value: "1" },
          { name: "A", value: "$(B)" },
        ],
        steps: [
          {
            name: "a",
            command: ["z", "y"],
            args: ["2", "1"],
            env: [
              { name: "B", value: "2" },
              { name: "C", value: "3" },
            ],
          },
        ],
      },
    });
    expect(ir.deploymentSpec.executors["exec-a"]?.container).toMatchObject({
      command: ["z", "y"],
      args: ["2", "1"],
      env: [
        { name: "B", value: "2" },
        { name: "A", value: "$(B)" },
        { name: "C", value: "3" },
      ],
    });
  });

  it("sorts a task's dependentTasks (as the SDK does)", () => {
    const ir = compiled({
      name: "p",
      spec: {
        provider: "kfp",
        image: "alpine",
        steps: [{ name: "c" }, { name: "b" }, { name: "a", dependsOn: ["c", "b"] }],
      },
    });
    expect(ir.root.dag.tasks.a?.dependentTasks).toEqual(["b", "c"]);
  });
});

describe("compilePipeline: what a Pipeline becomes", () => {
  const ir = compiled({
    name: "train",
    defaultBeamArgs: [{ name: "runner", value: "DirectRunner" }],
    spec: {
      provider: "kfp",
      image: "alpine",
      beamArgs: [{ name: "runner", value: "DataflowRunner" }],
      parameters: [{ name: "epochs", default: "3" }, { name: "data-set" }],
      steps: [
        {
          name: "fit",
          image: "python:3.11",
          args: ["--epochs={{workflow.parameters.epochs}}", "{{ workflow.parameters.data-set }}"],
          resources: {
            requests: { cpu: "500m", memory: "1Gi" },
            limits: { cpu: "2", "nvidia.com/gpu": "1" },
          },
        },
      ],
    },
  });

  it("gives each step a component, an executor and a task wired to the root's typed inputs", () => {
    expect(ir.components["comp-fit"]).toEqual({
      executorLabel: "exec-fit",
      inputDefinitions: {
        parameters: { data_set: { parameterType: "STRING" }, epochs: { parameterType: "NUMBER_INTEGER" } },
      },
    });
    expect(ir.root.inputDefinitions?.parameters).toEqual({
      data_set: { parameterType: "STRING" },
      epochs: { defaultValue: 3, isOptional: true, parameterType: "NUMBER_INTEGER" },
    });
    expect(ir.root.dag.tasks.fit?.inputs?.parameters).toEqual({
      data_set: { componentInputParameter: "data_set" },
      epochs: { componentInputParameter: "epochs" },
    });
    expect(ir.deploymentSpec.executors["exec-fit"]?.container.args).toEqual([
      "--epochs={{$.inputs.parameters['epochs']}}",
      "{{$.inputs.parameters['data_set']}}",
    ]);
  });

  it("writes resources as the SDK does: the strings and the deprecated numbers (cores, GB)", () => {
    expect(ir.deploymentSpec.executors["exec-fit"]?.container.resources).toEqual({
      accelerator: { count: "1", resourceCount: "1", resourceType: "nvidia.com/gpu", type: "nvidia.com/gpu" },
      cpuLimit: 2,
      cpuRequest: 0.5,
      memoryRequest: 1.073741824,
      resourceCpuLimit: "2",
      resourceCpuRequest: "500m",
      resourceMemoryRequest: "1Gi",
    });
  });

  it("passes beam args as SLIPWAY_BEAM_ARGS, the Pipeline's over the Provider's", () => {
    expect(ir.deploymentSpec.executors["exec-fit"]?.container.env).toEqual([
      { name: "SLIPWAY_BEAM_ARGS", value: JSON.stringify([{ name: "runner", value: "DataflowRunner" }]) },
    ]);
  });

  it("turns caching off (a Slipway run runs every step) and names the schema", () => {
    expect(ir.root.dag.tasks.fit?.cachingOptions).toEqual({ enableCache: false });
    expect(ir.schemaVersion).toBe("2.1.0");
    expect(ir.sdkVersion).toMatch(/^slipway-/);
    expect(ir.pipelineInfo).toEqual({ name: "train" });
  });
});

describe("compilePipeline: a step's retry", () => {
  const retried = (retry: NonNullable<Spec["steps"][number]["retry"]>) =>
    compiled({ name: "p", spec: { provider: "kfp", image: "alpine", steps: [{ name: "a", retry }] } }).root
      .dag.tasks.a?.retryPolicy;

  it("is the task's retryPolicy as set_retry compiles it: durations in seconds, all four fields", () => {
    expect(retried({ limit: 3, backoff: { duration: "1m30s", factor: 3, maxDuration: "2h" } })).toEqual({
      maxRetryCount: 3,
      backoffDuration: "90s",
      backoffFactor: 3,
      backoffMaxDuration: "7200s",
    });
  });

  it("without a backoff: the SDK's defaults (no wait, at most 3600s); with one but no factor: a constant wait", () => {
    expect(retried({ limit: 2 })).toEqual({
      maxRetryCount: 2,
      backoffDuration: "0s",
      backoffFactor: 2,
      backoffMaxDuration: "3600s",
    });
    expect(retried({ limit: 2, policy: "OnFailure", backoff: { duration: "10s" } })).toEqual({
      maxRetryCount: 2,
      backoffDuration: "10s",
      backoffFactor: 1,
      backoffMaxDuration: "3600s",
    });
  });

  it("is absent where a step has no retry", () => {
    const ir = compiled({ name: "p", spec: { provider: "kfp", image: "alpine", steps: [{ name: "a" }] } });
    expect(ir.root.dag.tasks.a?.retryPolicy).toBeUndefined();
  });
});

describe("compilePipeline: inputs and outputs between steps", () => {
  const artifact = { artifactType: { schemaTitle: "system.Artifact", schemaVersion: "0.0.1" } };
  const ir = compiled({
    name: "io",
    spec: {
      provider: "kfp",
      image: "alpine",
      parameters: [{ name: "learning-rate", default: "0.1" }],
      steps: [
        {
          name: "train",
          args: [
            "--rows={{inputs.parameters.rows}}",
            "{{inputs.artifacts.data.path}}",
            "{{inputs.parameters.lr}}",
            "{{outputs.artifacts.model.path}}",
            "{{workflow.parameters.learning-rate}}",
          ],
          inputs: {
            parameters: [
              { name: "rows", from: { step: "prepare", output: "rows" } },
              { name: "lr", from: { parameter: "learning-rate" } },
            ],
            artifacts: [{ name: "data", from: { step: "prepare", output: "dataset" } }],
          },
          outputs: { artifacts: [{ name: "model" }] },
        },
        {
          name: "prepare",
          command: ["sh", "-c", "echo 3 > {{outputs.parameters.rows.path}}"],
          args: ["{{outputs.artifacts.dataset.path}}"],
          outputs: { parameters: [{ name: "rows" }], artifacts: [{ name: "dataset" }] },
        },
      ],
    },
  });

  it("declares outputs in outputDefinitions and writes their files at kfp.dsl's placeholders", () => {
    expect(ir.components["comp-prepare"]).toEqual({
      executorLabel: "exec-prepare",
      outputDefinitions: {
        parameters: { rows: { parameterType: "STRING" } },
        artifacts: { dataset: artifact },
      },
    });
    expect(ir.deploymentSpec.executors["exec-prepare"]?.container).toMatchObject({
      command: ["sh", "-c", "echo 3 > {{$.outputs.parameters['rows'].output_file}}"],
      args: ["{{$.outputs.artifacts['dataset'].path}}"],
    });
  });

  it("wires an input to the producer's output (taskOutputParameter, taskOutputArtifact) and depends on it", () => {
    expect(ir.components["comp-train"]).toEqual({
      executorLabel: "exec-train",
      inputDefinitions: {
        parameters: {
          learning_rate: { parameterType: "NUMBER_DOUBLE" },
          lr: { parameterType: "NUMBER_DOUBLE" },
          rows: { parameterType: "STRING" },
        },
        artifacts: { data: artifact },
      },
      outputDefinitions: { artifacts: { model: artifact } },
    });
    expect(ir.root.dag.tasks.train).toMatchObject({
      dependentTasks: ["prepare"],
      inputs: {
        parameters: {
          learning_rate: { componentInputParameter: "learning_rate" },
          lr: { componentInputParameter: "learning_rate" },
          rows: { taskOutputParameter: { outputParameterKey: "rows", producerTask: "prepare" } },
        },
        artifacts: {
          data: { taskOutputArtifact: { outputArtifactKey: "dataset", producerTask: "prepare" } },
        },
      },
    });
    expect(ir.deploymentSpec.executors["exec-train"]?.container.args).toEqual([
      "--rows={{$.inputs.parameters['rows']}}",
      "{{$.inputs.artifacts['data'].path}}",
      "{{$.inputs.parameters['lr']}}",
      "{{$.outputs.artifacts['model'].path}}",
      "{{$.inputs.parameters['learning_rate']}}",
    ]);
    expect(ir.root.dag.tasks.prepare?.inputs).toBeUndefined();
    expect(ir.root.dag.tasks.prepare?.dependentTasks).toBeUndefined();
  });

  it("refuses what one Python function cannot have: an input named as a pipeline parameter the step also uses", () => {
    const result = failure({
      parameters: [{ name: "rows" }],
      steps: [
        { name: "a", outputs: { parameters: [{ name: "n" }] } },
        {
          name: "b",
          args: ["{{workflow.parameters.rows}}"],
          inputs: { parameters: [{ name: "rows", from: { step: "a", output: "n" } }] },
        },
      ],
    });
    expect(result.field).toBe("spec.steps[1].inputs.parameters[0].name");
    expect(result.error).toMatch(/rows is also \{\{workflow.parameters.rows\}\} in command or args/);
  });

  it("refuses a reference to an undeclared output and an I/O placeholder in env, naming the field", () => {
    expect(
      failure({
        steps: [
          { name: "a" },
          { name: "b", inputs: { artifacts: [{ name: "d", from: { step: "a", output: "d" } }] } },
        ],
      }),
    ).toMatchObject({
      field: "spec.steps[1].inputs.artifacts[0].from.output",
      error:
        "spec.steps[1].inputs.artifacts[0].from.output: step a has no output artifact d (its outputs.artifacts)",
    });
    expect(
      failure({
        steps: [
          {
            name: "a",
            env: [{ name: "OUT", value: "{{outputs.parameters.n.path}}" }],
            outputs: { parameters: [{ name: "n" }] },
          },
        ],
      }).field,
    ).toBe("spec.steps[0].env[0].value");
  });
});

describe("compilePipeline: what KFP cannot take names the field", () => {
  const cases: [string, Partial<Spec>, string, RegExp, string?][] = [
    ["a name with a dot", {}, "metadata.name", /\^\[a-z0-9\]/, "team.train"],
    [
      "a duplicate step",
      { steps: [{ name: "a" }, { name: "a" }] },
      "spec.steps[1].name",
      /another step is named a/,
    ],
    [
      "two steps KFP names alike",
      { steps: [{ name: "a-b" }, { name: "a--b" }] },
      "spec.steps[1].name",
      /same KFP task name a-b/,
    ],
    [
      "a step without image",
      { image: undefined, steps: [{ name: "a", image: "x" }, { name: "b" }] },
      "spec.steps[1].image",
      /needs an image/,
    ],
    [
      "an unknown dependency",
      { steps: [{ name: "a" }, { name: "b", dependsOn: ["a", "z"] }] },
      "spec.steps[1].dependsOn[1]",
      /z names no step/,
    ],
    [
      "a step depending on itself",
      { steps: [{ name: "a", dependsOn: ["a"] }] },
      "spec.steps[0].dependsOn[0]",
      /itself/,
    ],
    [
      "a cycle",
      {
        steps: [
          { name: "x" },
          { name: "a", dependsOn: ["c"] },
          { name: "b", dependsOn: ["a"] },
          { name: "c", dependsOn: ["b", "x"] },
        ],
      },
      "spec.steps[1]",
      /a cycle: a → c → b → a/,
    ],
    [
      "an unknown parameter",
      { steps: [{ name: "a", args: ["x", "{{workflow.parameters.nope}}"] }] },
      "spec.steps[0].args[1]",
      /nope names no parameter/,
    ],
    [
      "a parameter in env",
      { parameters: [{ name: "p" }], env: [{ name: "P", value: "{{workflow.parameters.p}}" }] },
      "spec.env[0].value",
      /only in a step's command and args/,
    ],
    [
      "a parameter starting with a digit",
      { parameters: [{ name: "1st" }] },
      "spec.parameters[0].name",
      /Python identifiers/,
    ],
    [
      "a parameter named as a keyword",
      { parameters: [{ name: "x" }, { name: "class" }] },
      "spec.parameters[1].name",
      /Python identifiers/,
    ],
    [
      "two parameters KFP names alike",
      { parameters: [{ name: "learning-rate" }, { name: "learning_rate" }] },
      "spec.parameters[1].name",
      /same KFP parameter learning_rate/,
    ],
    [
      "a bad cpu",
      { steps: [{ name: "a", resources: { limits: { cpu: "two" } } }] },
      "spec.steps[0].resources.limits.cpu",
      /cores/,
    ],
    [
      "a fractional memory",
      { steps: [{ name: "a", resources: { requests: { memory: "1.5Gi" } } }] },
      "spec.steps[0].resources.requests.memory",
      /integer/,
    ],
    [
      "ephemeral storage",
      { steps: [{ name: "a", resources: { requests: { "ephemeral-storage": "1Gi" } } }] },
      "spec.steps[0].resources.requests.ephemeral-storage",
      /only cpu, memory/,
    ],
    [
      "two accelerators",
      { steps: [{ name: "a", resources: { limits: { "amd.com/gpu": "1", "nvidia.com/gpu": "1" } } }] },
      "spec.steps[0].resources.limits",
      /one accelerator/,
    ],
    [
      "an accelerator request below its limit",
      {
        steps: [
          {
            name: "a",
            resources: { requests: { "nvidia.com/gpu": "1" }, limits: { "nvidia.com/gpu": "2" } },
          },
        ],
      },
      "spec.steps[0].resources.requests.nvidia.com/gpu",
      /equal its limit/,
    ],
    [
      "an accelerator without a limit",
      { steps: [{ name: "a", resources: { requests: { "nvidia.com/gpu": "1" } } }] },
      "spec.steps[0].resources.requests.nvidia.com/gpu",
      /needs a limit/,
    ],
    [
      "a retry policy KFP's IR cannot say",
      { steps: [{ name: "z" }, { name: "a", retry: { limit: 2, policy: "Always" } }] },
      "spec.steps[1].retry.policy",
      /KFP's IR has no retry policy: the kfp and vertex backends retry only a step that failed \(OnFailure\); Always is for argo/,
    ],
    [
      "OnError",
      { steps: [{ name: "a", retry: { limit: 1, policy: "OnError" } }] },
      "spec.steps[0].retry.policy",
      /OnError is for argo/,
    ],
    [
      "half an accelerator",
      { steps: [{ name: "a", resources: { limits: { "nvidia.com/gpu": "0.5" } } }] },
      "spec.steps[0].resources.limits.nvidia.com/gpu",
      /integer/,
    ],
  ];
  for (const [what, spec, field, rule, name] of cases)
    it(`${what} → ${field}`, () => {
      const result = failure(spec, name);
      expect(result.field).toBe(field);
      expect(result.error.startsWith(`${field}: `)).toBe(true);
      expect(result.error).toMatch(rule);
    });
});

describe("KFP's rules, as the SDK has them", () => {
  it("names tasks and parameters as kfp.dsl.utils does", () => {
    expect(kfpName("Train  Model__2-")).toBe("train-model-2");
    expect(kfpParameterName("Learning-Rate")).toBe("learning_rate");
  });

  it("types a parameter by its default", () => {
    expect([undefined, "s3://x", "3", "-3", "007", "0.25", "1e5", "true", "True"].map(parameterType)).toEqual(
      [
        "STRING",
        "STRING",
        "NUMBER_INTEGER",
        "NUMBER_INTEGER",
        "STRING",
        "NUMBER_DOUBLE",
        "STRING",
        "BOOLEAN",
        "STRING",
      ],
    );
    expect([
      typedValue("NUMBER_INTEGER", "12"),
      typedValue("NUMBER_INTEGER", "1.5"),
      typedValue("BOOLEAN", "yes"),
    ]).toEqual([12, undefined, undefined]);
  });

  it("converts CPU to cores and memory to GB", () => {
    expect([cpuCores("250m"), cpuCores("1.5")]).toEqual([0.25, 1.5]);
    expect([memoryGB("1Gi"), memoryGB("2G"), memoryGB("512Mi"), memoryGB("1000"), memoryGB("3Ki")]).toEqual([
      1.073741824, 2, 0.536870912, 0.000001, 0.000003072,
    ]);
  });
});

describe("readPipelineDocument", () => {
  const pipeline = (spec: string) => `kind: Pipeline\nmetadata: {name: p}\nspec: ${spec}\n`;
  it("reads a whole Pipeline object, YAML or JSON", () => {
    const yaml = readPipelineDocument(pipeline("{provider: kfp, image: alpine, steps: [{name: a}]}"));
    const json = readPipelineDocument(
      JSON.stringify({
        kind: "Pipeline",
        metadata: { name: "p" },
        spec: { provider: "kfp", image: "alpine", steps: [{ name: "a" }] },
      }),
    );
    expect(yaml).toEqual(json);
    expect(yaml.ok && yaml.pipeline.spec.steps).toEqual([{ name: "a" }]);
  });

  it("names the field the schema rejects", () => {
    const cases: [string, string][] = [
      [
        "{provider: kfp, steps: [{name: a, resources: {limits: {cpu: 1}}}]}",
        "spec.steps[0].resources.limits.cpu",
      ],
      ["{provider: kfp, steps: [{name: A}]}", "spec.steps[0].name"],
      ["{provider: kfp, steps: [{name: a, retries: 2}]}", "spec.steps[0].retries"],
      ["{provider: kfp, steps: []}", "spec.steps"],
    ];
    for (const [spec, field] of cases)
      expect(readPipelineDocument(pipeline(spec))).toMatchObject({ ok: false, field });
    expect(readPipelineDocument("kind: Run\n")).toMatchObject({ ok: false, field: "kind" });
    expect(readPipelineDocument("kind: Pipeline\nspec: {}\n")).toMatchObject({
      ok: false,
      field: "metadata.name",
    });
    expect(readPipelineDocument("kind: [")).toMatchObject({ ok: false, field: "(file)" });
  });
});
