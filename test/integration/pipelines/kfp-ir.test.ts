/**
 * Slipway's KFP IR judged by the real KFP SDK (tools/setup/40-kfp-sdk.sh): each pipeline's IR loads
 * with the SDK (unknown or wrongly typed fields refused), and equals the IR kfp's own compiler makes
 * of the same pipeline written with kfp.dsl container components, but for the documented
 * differences (docs/pipelines.md, "KFP IR"). No control plane is used.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compilePipeline, irJson, type KfpPipeline } from "../../../src/pipelines/kfp/compile.ts";
import { skipFor } from "../../support/allowed-skips.ts";
import { slipway } from "../../support/cli.ts";
import {
  arbitraryPipelineSpec,
  dslProgram,
  type Judged,
  judgeWithSdk,
  kfpPython,
  kfpVersion,
  setupScript,
} from "../../support/kfp-sdk.ts";

const pipelines: KfpPipeline[] = [
  {
    name: "single",
    spec: { provider: "kfp", steps: [{ name: "hello", image: "alpine", command: ["echo", "hello world"] }] },
  },
  {
    name: "diamond",
    spec: {
      provider: "kfp",
      image: "python:3.11",
      steps: [
        { name: "join", command: ["python", "-m", "join"], dependsOn: ["left", "right"] },
        { name: "left", command: ["python", "-m", "left"], dependsOn: ["split"] },
        { name: "right", command: ["python", "-m", "right"], dependsOn: ["split"] },
        { name: "split", command: ["python", "-m", "split"] },
      ],
    },
  },
  {
    name: "typed-parameters",
    pipelineRoot: "gs://bucket/root",
    spec: {
      provider: "kfp",
      image: "trainer:1",
      parameters: [
        { name: "dataset", default: "s3://data/train.csv" },
        { name: "epochs", default: "10" },
        { name: "learning-rate", default: "0.001" },
        { name: "shuffle", default: "true" },
        { name: "run_id" },
      ],
      steps: [
        {
          name: "prepare",
          command: ["prepare"],
          args: ["--dataset={{workflow.parameters.dataset}}", "--shuffle", "{{workflow.parameters.shuffle}}"],
        },
        {
          name: "train-model",
          command: ["train"],
          args: [
            "--epochs={{workflow.parameters.epochs}}",
            "--lr={{workflow.parameters.learning-rate}}/{{workflow.parameters.run_id}}",
          ],
          dependsOn: ["prepare"],
        },
      ],
    },
  },
  {
    name: "resources",
    spec: {
      provider: "kfp",
      image: "trainer:1",
      steps: [
        {
          name: "fit",
          resources: {
            requests: { cpu: "500m", memory: "1Gi" },
            limits: { cpu: "2", memory: "3G", "nvidia.com/gpu": "1" },
          },
        },
        { name: "score", resources: { requests: { cpu: "0.25", memory: "512Mi" } }, dependsOn: ["fit"] },
      ],
    },
  },
  {
    name: "env",
    spec: {
      provider: "kfp",
      image: "alpine",
      env: [
        { name: "ZONE", value: "eu" },
        { name: "LEVEL", value: "info" },
      ],
      beamArgs: [{ name: "runner", value: "DirectRunner" }],
      steps: [
        {
          name: "a",
          command: ["env"],
          env: [
            { name: "LEVEL", value: "debug" },
            { name: "PATH_X", value: "$(ZONE)/x" },
          ],
        },
      ],
    },
  },
  {
    name: "retries",
    spec: {
      provider: "kfp",
      image: "trainer:1",
      steps: [
        { name: "fetch", command: ["fetch"], retry: { limit: 2 } },
        {
          name: "train",
          command: ["train"],
          dependsOn: ["fetch"],
          retry: {
            limit: 5,
            policy: "OnFailure",
            backoff: { duration: "30s", factor: 3, maxDuration: "2h" },
          },
        },
        {
          name: "evaluate",
          command: ["evaluate"],
          dependsOn: ["train"],
          retry: { limit: 1, backoff: { duration: "1m30s", maxDuration: "90m" } },
        },
        { name: "report", command: ["report"], dependsOn: ["evaluate"] },
      ],
    },
  },
  {
    name: "inputs-outputs",
    spec: {
      provider: "kfp",
      image: "python:3.11",
      parameters: [
        { name: "learning-rate", default: "0.1" },
        { name: "epochs", default: "3" },
      ],
      steps: [
        {
          name: "evaluate",
          command: ["python", "-m", "evaluate"],
          args: ["--model={{inputs.artifacts.model.path}}", "--score", "{{inputs.parameters.score}}"],
          inputs: {
            parameters: [{ name: "score", from: { step: "train", output: "score" } }],
            artifacts: [{ name: "model", from: { step: "train", output: "model" } }],
          },
        },
        {
          name: "train",
          command: ["python", "-m", "train"],
          args: [
            "--rows={{inputs.parameters.rows}}",
            "--data",
            "{{inputs.artifacts.data.path}}",
            "--lr={{inputs.parameters.lr}}",
            "--epochs={{workflow.parameters.epochs}}",
            "--model={{outputs.artifacts.model.path}}",
            "--score={{outputs.parameters.score.path}}",
          ],
          inputs: {
            parameters: [
              { name: "rows", from: { step: "prepare", output: "rows" } },
              { name: "lr", from: { parameter: "learning-rate" } },
            ],
            artifacts: [{ name: "data", from: { step: "prepare", output: "dataset" } }],
          },
          outputs: { parameters: [{ name: "score" }], artifacts: [{ name: "model" }] },
          dependsOn: ["prepare"],
        },
        {
          name: "prepare",
          command: [
            "sh",
            "-c",
            "echo 42 > {{outputs.parameters.rows.path}}; cp /data {{outputs.artifacts.dataset.path}}",
          ],
          outputs: { parameters: [{ name: "rows" }], artifacts: [{ name: "dataset" }] },
        },
      ],
    },
  },
  {
    name: "caching",
    defaultCaching: { enabled: true },
    spec: {
      provider: "kfp",
      image: "trainer:1",
      caching: { enabled: false },
      steps: [
        { name: "fetch", command: ["fetch"], caching: { enabled: true } },
        { name: "train", command: ["train"], dependsOn: ["fetch"] },
      ],
    },
  },
  {
    name: "run-caching",
    runCaching: { enabled: false },
    spec: {
      provider: "kfp",
      image: "trainer:1",
      caching: { enabled: true },
      steps: [
        { name: "fetch", command: ["fetch"], caching: { enabled: true } },
        { name: "train", command: ["train"], dependsOn: ["fetch"] },
      ],
    },
  },
];

/** More, drawn at random (a fixed seed, so a failure repeats): free text in args and env, defaults of every type. */
const randomPipelines: KfpPipeline[] = fc
  .sample(arbitraryPipelineSpec, { numRuns: 12, seed: 17 })
  .map((spec, i) => ({ name: `random-${i}`, spec }));

function slipwayIr(pipeline: KfpPipeline): string {
  const result = compilePipeline(pipeline);
  if (!result.ok) throw new Error(result.error);
  return irJson(result.ir);
}

/** The differences docs/pipelines.md names: who made the IR. */
function withoutDocumentedDifferences(ir: Record<string, unknown>): Record<string, unknown> {
  const { sdkVersion: _, ...rest } = ir;
  return rest;
}

// biome-ignore lint/suspicious/noExplicitAny: reads of the parsed IR
type Any = any;

const python = kfpPython();

describe(
  `Slipway's KFP IR and the KFP SDK ${kfpVersion}`,
  skipFor(python ? "" : `the KFP SDK ${kfpVersion} is not installed: run ${setupScript}`),
  () => {
    const broken = JSON.parse(slipwayIr(pipelines[0] as KfpPipeline));
    broken.deploymentSpec.executors["exec-hello"].container.resources = { cpuLimits: "1" };
    const wrongType = JSON.parse(slipwayIr(pipelines[0] as KfpPipeline));
    wrongType.root.dag.tasks.hello.dependentTasks = "split";
    let judged: Judged[];
    beforeAll(async () => {
      judged = await judgeWithSdk(python as string, [
        ...[...pipelines, ...randomPipelines].map((pipeline) => ({
          ir: slipwayIr(pipeline),
          program: dslProgram(pipeline),
        })),
        { ir: JSON.stringify(broken) },
        { ir: JSON.stringify(wrongType) },
      ]);
    }, 300_000);

    for (const [i, pipeline] of [...pipelines, ...randomPipelines].entries())
      it(`${pipeline.name}: loads with the SDK and equals what kfp compiles from kfp.dsl`, () => {
        const { ours, theirs, error } = judged[i] as Judged;
        expect(error).toBeUndefined();
        expect(theirs?.ir.sdkVersion).toBe(`kfp-${kfpVersion}`);
        expect(withoutDocumentedDifferences(ours?.ir ?? {})).toEqual(
          withoutDocumentedDifferences(theirs?.ir ?? {}),
        );
        expect(ours?.inputs).toEqual(theirs?.inputs);
        expect(ours?.name).toBe(theirs?.name);
      });

    it("the SDK sees each parameter's type and default", () => {
      const typed = judged[pipelines.findIndex((p) => p.name === "typed-parameters")] as Judged;
      expect(typed.ours?.inputs).toEqual({
        dataset: { type: "String", default: "s3://data/train.csv", optional: true },
        epochs: { type: "Integer", default: 10, optional: true },
        learning_rate: { type: "Float", default: 0.001, optional: true },
        shuffle: { type: "Boolean", default: true, optional: true },
        run_id: { type: "String", default: null, optional: false },
      });
    });

    it("a retried step's task has the retryPolicy kfp writes for set_retry", () => {
      const retries = judged[pipelines.findIndex((p) => p.name === "retries")] as Judged;
      const tasks = (retries.theirs?.ir.root as Any)?.dag?.tasks;
      expect(tasks?.train?.retryPolicy).toEqual({
        maxRetryCount: 5,
        backoffDuration: "30s",
        backoffFactor: 3,
        backoffMaxDuration: "7200s",
      });
      expect(tasks?.fetch?.retryPolicy).toEqual({
        maxRetryCount: 2,
        backoffDuration: "0s",
        backoffFactor: 2,
        backoffMaxDuration: "3600s",
      });
      expect(tasks?.report).toBeDefined();
      expect(tasks?.report?.retryPolicy).toBeUndefined();
      expect((retries.ours?.ir.root as Any)?.dag?.tasks).toEqual(tasks);
    });

    it("outputs wired to inputs: kfp's own IR has the taskOutputParameter, taskOutputArtifact and placeholders Slipway writes", () => {
      const io = judged[pipelines.findIndex((p) => p.name === "inputs-outputs")] as Judged;
      const theirs = io.theirs?.ir as Any;
      expect(theirs?.root?.dag?.tasks?.train?.inputs).toEqual({
        parameters: {
          epochs: { componentInputParameter: "epochs" },
          lr: { componentInputParameter: "learning_rate" },
          rows: { taskOutputParameter: { outputParameterKey: "rows", producerTask: "prepare" } },
        },
        artifacts: {
          data: { taskOutputArtifact: { outputArtifactKey: "dataset", producerTask: "prepare" } },
        },
      });
      expect(theirs?.root?.dag?.tasks?.evaluate?.dependentTasks).toEqual(["train"]);
      expect(theirs?.components?.["comp-prepare"]?.outputDefinitions).toEqual({
        parameters: { rows: { parameterType: "STRING" } },
        artifacts: { dataset: { artifactType: { schemaTitle: "system.Artifact", schemaVersion: "0.0.1" } } },
      });
      expect(theirs?.deploymentSpec?.executors?.["exec-train"]?.container?.args).toContain(
        "--score={{$.outputs.parameters['score'].output_file}}",
      );
      expect((io.ours?.ir as Any)?.root).toEqual(theirs?.root);
      expect((io.ours?.ir as Any)?.components).toEqual(theirs?.components);
    });

    it("each task's cachingOptions is what set_caching_options compiles: the step's over the Pipeline's, the Run's over both", () => {
      const tasksOf = (name: string, side: "ours" | "theirs") =>
        ((judged[pipelines.findIndex((p) => p.name === name)] as Judged)[side]?.ir.root as Any)?.dag?.tasks;
      // protobuf's JSON leaves out a false enableCache
      expect(tasksOf("caching", "theirs")?.fetch?.cachingOptions).toEqual({ enableCache: true });
      expect(tasksOf("caching", "theirs")?.train?.cachingOptions).toEqual({});
      expect(tasksOf("caching", "ours")).toEqual(tasksOf("caching", "theirs"));
      expect(tasksOf("run-caching", "theirs")?.fetch?.cachingOptions).toEqual({});
      expect(tasksOf("run-caching", "ours")).toEqual(tasksOf("run-caching", "theirs"));
    });

    it("refuses a field the proto does not have, and a field of the wrong type (the check can fail)", () => {
      const cases = pipelines.length + randomPipelines.length;
      expect(judged[cases]?.error).toMatch(/cpuLimits/);
      expect(judged[cases + 1]?.error).toMatch(/dependentTasks|dependent_tasks/);
    });
  },
);

describe("slipway pipelines compile", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "slipway-kfp-cli-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const document = (pipeline: KfpPipeline) => ({
    apiVersion: "pipelines.slipway.dev/v1beta1",
    kind: "Pipeline",
    metadata: { name: pipeline.name, namespace: "ml" },
    spec: pipeline.spec,
  });

  it("prints the IR of a Pipeline file, as JSON or YAML, for kfp or vertex", async () => {
    const pipeline = pipelines[2] as KfpPipeline;
    const file = join(dir, "typed.json");
    await writeFile(file, JSON.stringify(document(pipeline)));
    const json = await slipway(["pipelines", "compile", file]);
    expect(json).toMatchObject({ code: 0, stdout: slipwayIr({ ...pipeline, pipelineRoot: undefined }) });
    const vertex = await slipway([
      "pipelines",
      "compile",
      file,
      "--backend",
      "vertex",
      "-o",
      "yaml",
      "--pipeline-root",
      "gs://bucket/root",
    ]);
    expect(vertex.code).toBe(0);
    const { parse } = await import("yaml");
    expect(parse(vertex.stdout)).toEqual(JSON.parse(slipwayIr(pipeline)));
  });

  it("shows a step's retry as its task's retryPolicy; a policy KFP cannot say fails naming the field and the backends", async () => {
    const pipeline = pipelines.find((p) => p.name === "retries") as KfpPipeline;
    const file = join(dir, "retries.yaml");
    const { stringify, parse } = await import("yaml");
    await writeFile(file, stringify(document(pipeline)));
    const shown = await slipway(["pipelines", "compile", file, "-o", "yaml"]);
    expect(shown.code).toBe(0);
    expect(parse(shown.stdout).root.dag.tasks.evaluate.retryPolicy).toEqual({
      maxRetryCount: 1,
      backoffDuration: "90s",
      backoffFactor: 1,
      backoffMaxDuration: "5400s",
    });
    const always = document(pipeline);
    always.spec = { ...always.spec, steps: [{ name: "fetch", retry: { limit: 2, policy: "Always" } }] };
    await writeFile(file, stringify(always));
    for (const backend of ["kfp", "vertex"]) {
      const refused = await slipway(["pipelines", "compile", file, "--backend", backend]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(
        `error: ${file}: spec.steps[0].retry.policy: KFP's IR has no retry policy: the kfp and vertex backends retry only a step that failed (OnFailure); Always is for argo\n`,
      );
    }
  });

  it("shows outputs wired to inputs; a reference to an output the step lacks fails with one line naming the field", async () => {
    const pipeline = pipelines.find((p) => p.name === "inputs-outputs") as KfpPipeline;
    const file = join(dir, "io.yaml");
    const { stringify, parse } = await import("yaml");
    await writeFile(file, stringify(document(pipeline)));
    const shown = await slipway(["pipelines", "compile", file, "-o", "yaml"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(parse(shown.stdout).root.dag.tasks.evaluate.inputs.artifacts).toEqual({
      model: { taskOutputArtifact: { outputArtifactKey: "model", producerTask: "train" } },
    });
    const bad = document(pipeline);
    bad.spec = {
      ...bad.spec,
      steps: bad.spec.steps.map((step) =>
        step.name === "evaluate"
          ? {
              ...step,
              inputs: { artifacts: [{ name: "model", from: { step: "train", output: "weights" } }] },
            }
          : step,
      ),
    };
    await writeFile(file, stringify(bad));
    const refused = await slipway(["pipelines", "compile", file]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toBe(
      `error: ${file}: spec.steps[0].inputs.artifacts[0].from.output: step train has no output artifact weights (its outputs.artifacts)\n`,
    );
  });

  it("shows each step's caching as its task's cachingOptions; a maxAge KFP cannot honour fails naming the field", async () => {
    const pipeline = pipelines.find((p) => p.name === "caching") as KfpPipeline;
    const file = join(dir, "caching.yaml");
    const { stringify, parse } = await import("yaml");
    await writeFile(file, stringify(document(pipeline)));
    const shown = await slipway(["pipelines", "compile", file, "-o", "yaml"]);
    expect(shown.code).toBe(0);
    const tasks = parse(shown.stdout).root.dag.tasks;
    // the file has no Provider: its defaultCaching does not apply here
    expect(tasks.fetch.cachingOptions).toEqual({ enableCache: true });
    expect(tasks.train.cachingOptions).toEqual({ enableCache: false });
    const aged = document(pipeline);
    aged.spec = { ...aged.spec, steps: [{ name: "fetch", caching: { enabled: true, maxAge: "24h" } }] };
    await writeFile(file, stringify(aged));
    const refused = await slipway(["pipelines", "compile", file, "--backend", "vertex"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `error: ${file}: spec.steps[0].caching.maxAge: KFP's caching has no maximum age of a reused execution (argo only): leave maxAge unset\n`,
    );
  });

  it("fails with one line naming the field", async () => {
    const file = join(dir, "bad.yaml");
    const { stringify } = await import("yaml");
    const bad = document(pipelines[1] as KfpPipeline);
    bad.spec = { ...bad.spec, steps: [...bad.spec.steps, { name: "extra", dependsOn: ["missing"] }] };
    await writeFile(file, stringify(bad));
    const result = await slipway(["pipelines", "compile", file]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `error: ${file}: spec.steps[4].dependsOn[0]: missing names no step of this pipeline\n`,
    );
    const vertex = await slipway([
      "pipelines",
      "compile",
      file,
      "--backend",
      "vertex",
      "--pipeline-root",
      "s3://x",
    ]);
    expect(vertex.stderr).toBe("error: --pipeline-root: Vertex AI needs a gs:// location, not s3://x\n");
  });
});
