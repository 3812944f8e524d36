/**
 * The real KFP SDK (installed by tools/setup/40-kfp-sdk.sh) as the judge of Slipway's IR: the same
 * Pipeline written as kfp.dsl container components and compiled by kfp, and both IRs loaded by it.
 */
import { execFile } from "node:child_process";
import fc from "fast-check";
import { durationSeconds } from "../../src/apis/duration.ts";
import type { Pipeline, PipelineStep } from "../../src/apis/pipelines/pipeline.ts";
import { effectiveCaching } from "../../src/pipelines/caching.ts";
import type { KfpPipeline } from "../../src/pipelines/kfp/compile.ts";
import { kfpParameterName } from "../../src/pipelines/kfp/names.ts";
import { parameterType, referencedParameters } from "../../src/pipelines/kfp/parameters.ts";
import { stepDependencies } from "../../src/pipelines/step-io.ts";

export { kfpPython, kfpVersion, setupScript } from "./fakes/kfp-server.ts";

const py = (text: string) => JSON.stringify(text);

function pythonDefault(text: string): string {
  const type = parameterType(text);
  if (type === "BOOLEAN") return text === "true" ? "True" : "False";
  return type === "STRING" ? py(text) : text;
}

const pythonType = { STRING: "str", NUMBER_INTEGER: "int", NUMBER_DOUBLE: "float", BOOLEAN: "bool" };

/**
 * A command or arg as Python: literal parts and `str(<argument>)` joined with `+`; an input
 * parameter is its argument, an artifact's or output's file `<argument>.path` (kfp.dsl's
 * placeholders), an output parameter's file the `OutputPath` argument itself.
 */
function pythonText(text: string): string {
  const tag =
    /\{\{\s*(?:workflow\.parameters\.([^}\s]+)|(inputs|outputs)\.(parameters|artifacts)\.([^}\s.]+)(\.path)?)\s*\}\}/g;
  const terms: string[] = [];
  let last = 0;
  for (const match of text.matchAll(tag)) {
    if (match.index > last) terms.push(py(text.slice(last, match.index)));
    const [, parameter, direction, kind, name] = match;
    if (parameter) terms.push(`str(${kfpParameterName(parameter)})`);
    else if (direction === "inputs" && kind === "parameters") terms.push(`str(${name})`);
    else if (direction === "outputs" && kind === "parameters") terms.push(`str(${name})`);
    else terms.push(`str(${name}.path)`);
    last = match.index + match[0].length;
  }
  if (last < text.length) terms.push(py(text.slice(last)));
  return terms.join(" + ") || '""';
}

/** A step's own arguments (its inputs and outputs) as a kfp.dsl component's signature. */
function ioSignature(pipeline: KfpPipeline, step: PipelineStep): string[] {
  const typeOf = (name: string) =>
    pythonType[parameterType(pipeline.spec.parameters?.find((p) => p.name === name)?.default)];
  return [
    ...(step.inputs?.parameters ?? []).map(
      (input) =>
        `${input.name}: ${input.from.parameter !== undefined ? typeOf(input.from.parameter) : "str"}`,
    ),
    ...(step.inputs?.artifacts ?? []).map((input) => `${input.name}: dsl.Input[dsl.Artifact]`),
    ...(step.outputs?.parameters ?? []).map((output) => `${output.name}: dsl.OutputPath(str)`),
    ...(step.outputs?.artifacts ?? []).map((output) => `${output.name}: dsl.Output[dsl.Artifact]`),
  ];
}

function componentSource(pipeline: KfpPipeline, step: PipelineStep, index: number): string {
  const texts = [...(step.command ?? []), ...(step.args ?? [])];
  const names = [...new Set(texts.flatMap(referencedParameters))];
  const signature = [
    ...names.map((name) => {
      const parameter = pipeline.spec.parameters?.find((p) => p.name === name);
      return `${kfpParameterName(name)}: ${pythonType[parameterType(parameter?.default)]}`;
    }),
    ...ioSignature(pipeline, step),
  ];
  const list = (items?: string[]) => `[${(items ?? []).map(pythonText).join(", ")}]`;
  const image = py(step.image ?? pipeline.spec.image ?? "");
  return [
    `def _step_${index}(${signature.join(", ")}):`,
    `    return dsl.ContainerSpec(image=${image}, command=${list(step.command)}, args=${list(step.args)})`,
    `_step_${index}.__name__ = ${py(step.name)}`,
    `step_${index} = dsl.container_component(_step_${index})`,
    "",
  ].join("\n");
}

function resourceCalls(task: string, step: PipelineStep): string[] {
  const calls: string[] = [];
  const setters = { cpu: "cpu", memory: "memory" } as const;
  for (const [kind, quantities] of [
    ["request", step.resources?.requests],
    ["limit", step.resources?.limits],
  ] as const)
    for (const [name, value] of Object.entries(quantities ?? {})) {
      if (name in setters) calls.push(`${task}.set_${name}_${kind}(${py(value)})`);
      else if (kind === "limit")
        calls.push(`${task}.set_accelerator_type(${py(name)}).set_accelerator_limit(${py(value)})`);
    }
  return calls;
}

/** `task.set_retry(...)` for a step's retry: durations of one unit as written (the SDK converts them), others in seconds. */
function retryCalls(task: string, step: PipelineStep): string[] {
  const retry = step.retry;
  if (!retry) return [];
  const duration = (text: string) => py(/^[0-9]+[hms]$/.test(text) ? text : `${durationSeconds(text)}s`);
  const backoff = retry.backoff;
  const args = [
    `num_retries=${retry.limit}`,
    ...(backoff
      ? [`backoff_duration=${duration(backoff.duration)}`, `backoff_factor=${backoff.factor ?? 1}`]
      : []),
    ...(backoff?.maxDuration ? [`backoff_max_duration=${duration(backoff.maxDuration)}`] : []),
  ];
  return [`${task}.set_retry(${args.join(", ")})`];
}

const cachingLevels = (pipeline: KfpPipeline) => ({
  provider: pipeline.defaultCaching,
  pipeline: pipeline.spec,
  run: pipeline.runCaching,
});

function taskSource(pipeline: KfpPipeline, step: PipelineStep, index: number, order: string[]): string[] {
  const task = `t_${index}`;
  const texts = [...(step.command ?? []), ...(step.args ?? [])];
  const referenced = [...new Set(texts.flatMap(referencedParameters))].map(kfpParameterName);
  const taskOf = (name: string) => `t_${order.indexOf(name)}`;
  const inputs = [
    ...referenced.map((name) => `${name}=${name}`),
    ...(step.inputs?.parameters ?? []).map((input) =>
      input.from.parameter !== undefined
        ? `${input.name}=${kfpParameterName(input.from.parameter)}`
        : `${input.name}=${taskOf(input.from.step ?? "")}.outputs[${py(input.from.output ?? "")}]`,
    ),
    ...(step.inputs?.artifacts ?? []).map(
      (input) => `${input.name}=${taskOf(input.from.step)}.outputs[${py(input.from.output)}]`,
    ),
  ];
  const beamArgs = pipeline.spec.beamArgs?.length
    ? [{ name: "SLIPWAY_BEAM_ARGS", value: JSON.stringify(pipeline.spec.beamArgs) }]
    : [];
  const env = [...(pipeline.spec.env ?? []), ...(step.env ?? []), ...beamArgs];
  return [
    `${task} = step_${index}(${inputs.join(", ")})`,
    // a Run's caching is what the SDK's run-time enable_caching does: the same call on every task
    `${task}.set_caching_options(${effectiveCaching(cachingLevels(pipeline), pipeline.spec.steps.indexOf(step)).enabled ? "True" : "False"})`,
    ...env.map((item) => `${task}.set_env_variable(${py(item.name)}, ${py(item.value)})`),
    ...resourceCalls(task, step),
    ...retryCalls(task, step),
    ...(step.dependsOn ?? []).map((name) => `${task}.after(t_${order.indexOf(name)})`),
  ];
}

/** The steps in an order where each comes after its dependencies (Python needs the task objects). */
function topological(steps: PipelineStep[]): PipelineStep[] {
  const done: PipelineStep[] = [];
  while (done.length < steps.length)
    for (const step of steps)
      if (!done.includes(step) && stepDependencies(step).every((d) => done.some((s) => s.name === d)))
        done.push(step);
  return done;
}

/** A Python module defining `pipeline`: `pipeline` written with kfp.dsl container components. */
export function dslProgram(pipeline: KfpPipeline): string {
  const steps = topological(pipeline.spec.steps);
  const order = steps.map((step) => step.name);
  const parameters = [...(pipeline.spec.parameters ?? [])].sort(
    (a, b) => Number(a.default !== undefined) - Number(b.default !== undefined),
  );
  const signature = parameters.map((p) => {
    const annotation = `${kfpParameterName(p.name)}: ${pythonType[parameterType(p.default)]}`;
    return p.default === undefined ? annotation : `${annotation} = ${pythonDefault(p.default)}`;
  });
  const root = pipeline.pipelineRoot ? `, pipeline_root=${py(pipeline.pipelineRoot)}` : "";
  return [
    "from kfp import dsl",
    "",
    ...steps.map((step, i) => componentSource(pipeline, step, i)),
    `@dsl.pipeline(name=${py(pipeline.name)}${root})`,
    `def pipeline(${signature.join(", ")}):`,
    ...steps.flatMap((step, i) => taskSource(pipeline, step, i, order)).map((line) => `    ${line}`),
    "    pass",
    "",
  ].join("\n");
}

/**
 * For each case (JSON on stdin): Slipway's IR loaded as the SDK does — protobuf's ParseDict into
 * PipelineSpec, and its deploymentSpec (a Struct there) into PipelineDeploymentConfig, unknown fields
 * refused; then as a component (kfp.components) — and, when the case has a kfp.dsl program, the IR
 * kfp's compiler makes of it, loaded the same way. One process for all: importing kfp is slow.
 */
const judgeProgram = `
import json, os, sys, tempfile, traceback
from google.protobuf import json_format
from kfp import compiler, components
from kfp.pipeline_spec import pipeline_spec_pb2

def load(text):
    ir = json.loads(text)
    spec = json_format.ParseDict(ir, pipeline_spec_pb2.PipelineSpec(), ignore_unknown_fields=False)
    deployment = json_format.ParseDict(ir.get("deploymentSpec", {}), pipeline_spec_pb2.PipelineDeploymentConfig(), ignore_unknown_fields=False)
    component = components.load_component_from_text(text)
    inputs = {name: {"type": input.type, "default": input.default, "optional": input.optional}
              for name, input in (component.component_spec.inputs or {}).items()}
    parsed = json_format.MessageToDict(spec)
    parsed["deploymentSpec"] = json_format.MessageToDict(deployment)
    return {"ir": parsed, "name": component.name, "inputs": inputs}

def compiled(program, path):
    namespace = {"__name__": "slipway_dsl"}
    exec(compile(program, "<kfp.dsl program>", "exec"), namespace)
    compiler.Compiler().compile(namespace["pipeline"], path)
    with open(path) as file:
        return file.read()

def judge(case, path):
    try:
        result = {"ours": load(case["ir"])}
        if case.get("program"):
            result["theirs"] = load(compiled(case["program"], path))
        return result
    except Exception as error:
        return {"error": "".join(traceback.format_exception_only(error)).strip()}

with tempfile.TemporaryDirectory() as directory:
    cases = json.load(sys.stdin)
    print(json.dumps([judge(case, os.path.join(directory, f"{i}.json")) for i, case in enumerate(cases)]))
`;

export interface LoadedIr {
  ir: Record<string, unknown>;
  name: string;
  inputs: Record<string, { type: string; default: unknown; optional: boolean }>;
}

export interface Judged {
  ours?: LoadedIr;
  theirs?: LoadedIr;
  error?: string;
}

/** Judges each case: `ir` is Slipway's IR (JSON), `program` a kfp.dsl program (dslProgram) or absent. */
export function judgeWithSdk(python: string, cases: { ir: string; program?: string }[]): Promise<Judged[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      python,
      ["-c", judgeProgram],
      { timeout: 300_000, maxBuffer: 64 << 20 },
      (error, stdout, stderr) =>
        error
          ? reject(new Error(`the KFP SDK judge failed: ${stderr || error.message}`))
          : resolve(JSON.parse(stdout)),
    );
    child.stdin?.end(JSON.stringify(cases));
  });
}

const stepNames = ["prep", "train", "eval", "push", "report", "clean"];
const defaults = fc.oneof(
  fc.constant(undefined),
  fc.string(),
  fc.integer().map(String),
  fc.constantFrom("true", "false", "0.25"),
);
const parameters = fc.uniqueArray(
  fc.record({ name: fc.constantFrom("dataset", "epochs", "lr", "flag", "mode"), default: defaults }),
  {
    selector: (p) => p.name,
    maxLength: 5,
  },
);
/** Step i's outputs in a random pipeline: a parameter `n<i>` and an artifact `m<i>`, each by its seed. */
function randomOutputs(i: number, seeds: number[]) {
  return {
    parameters: (seeds[i] ?? 0) % 2 === 0 ? [{ name: `n${i}` }] : [],
    artifacts: (seeds[i + 8] ?? 0) % 3 === 0 ? [{ name: `m${i}` }] : [],
  };
}

/**
 * Step i's inputs and outputs in a random pipeline: it takes some outputs of earlier steps (`x<j>`
 * the parameter of step j, `y<j>` its artifact) and names every one in its args.
 */
function randomIo(i: number, seeds: number[]): Pick<PipelineStep, "inputs" | "outputs" | "args"> {
  const outputs = randomOutputs(i, seeds);
  const from = Array.from({ length: i }, (_, j) => j).filter((j) => (seeds[16 + i * 4 + j] ?? 0) % 2 === 0);
  const parameters = from.flatMap((j) =>
    randomOutputs(j, seeds).parameters.map((o) => ({
      name: `x${j}`,
      from: { step: stepNames[j] as string, output: o.name },
    })),
  );
  const artifacts = from.flatMap((j) =>
    randomOutputs(j, seeds).artifacts.map((o) => ({
      name: `y${j}`,
      from: { step: stepNames[j] as string, output: o.name },
    })),
  );
  const args = [
    ...parameters.map((p) => `--${p.name}={{inputs.parameters.${p.name}}}`),
    ...artifacts.map((a) => `{{inputs.artifacts.${a.name}.path}}`),
    ...outputs.parameters.map((o) => `--${o.name}={{outputs.parameters.${o.name}.path}}`),
    ...outputs.artifacts.map((o) => `{{outputs.artifacts.${o.name}.path}}`),
  ];
  const inputs = {
    ...(parameters.length ? { parameters } : {}),
    ...(artifacts.length ? { artifacts } : {}),
  };
  const declared = {
    ...(outputs.parameters.length ? { parameters: outputs.parameters } : {}),
    ...(outputs.artifacts.length ? { artifacts: outputs.artifacts } : {}),
  };
  return {
    args,
    ...(Object.keys(inputs).length ? { inputs } : {}),
    ...(Object.keys(declared).length ? { outputs: declared } : {}),
  };
}

/**
 * Pipelines for property tests: a DAG (each step depends only on steps before it, by dependsOn and
 * by taking their outputs) whose steps refer to some of the parameters, with defaults of every type
 * and free text in args and env.
 */
export const arbitraryPipelineSpec = fc
  .tuple(
    fc.integer({ min: 1, max: stepNames.length }),
    parameters,
    fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
    fc.string(),
    fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
  )
  .map(([count, params, seeds, text, ioSeeds]): Pipeline["spec"] => ({
    provider: "kfp",
    image: "alpine",
    env: [{ name: "ZONE", value: "eu" }],
    parameters: params.map((p) =>
      p.default === undefined ? { name: p.name } : { name: p.name, default: p.default },
    ),
    steps: stepNames.slice(0, count).map((name, i) => {
      const io = randomIo(i, ioSeeds);
      return {
        name,
        command: ["run", name, text],
        args: [
          ...params
            .filter((_, j) => (seeds[i + j] ?? 0) % 2 === 0)
            .map((p) => `--${p.name}={{workflow.parameters.${p.name}}}`),
          ...(io.args ?? []),
        ],
        env: [{ name: "STEP", value: `${name}:${text}` }],
        dependsOn: stepNames.slice(0, i).filter((_, j) => (seeds[i * 6 + j] ?? 0) % 3 === 0),
        resources: { requests: { cpu: `${100 * (i + 1)}m`, memory: "256Mi" }, limits: { memory: "1Gi" } },
        ...(io.inputs ? { inputs: io.inputs } : {}),
        ...(io.outputs ? { outputs: io.outputs } : {}),
      };
    }),
  }));
