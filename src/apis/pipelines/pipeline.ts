import { type TSchema, Type } from "@sinclair/typebox";
import { Duration } from "../duration.ts";
import { defineKind, type Resource } from "../kind.ts";
import { validations } from "../schema.ts";
import { CachePolicy } from "./caching.ts";
import {
  dnsLabelPattern,
  group,
  NamedValues,
  ProviderReference,
  providerColumns,
  StringEnum,
  StringMap,
  synchronizedStatus,
  version,
} from "./common.ts";

/** Which failures a retry counts: Argo's RetryPolicy names (v1alpha1 workflow_types.go). */
export const retryPolicies = ["OnFailure", "OnError", "Always"] as const;
/** Argo's default when a retryStrategy names no policy (RetryStrategy.RetryPolicyActual), and KFP's only one. */
export const defaultRetryPolicy = "OnFailure";

const Backoff = Type.Object(
  {
    duration: Duration("1s", "24h", "The wait before the first retry."),
    factor: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10,
        description:
          "Each wait is the previous one times this (Argo takes whole numbers). Default 1: a constant wait.",
      }),
    ),
    maxDuration: Type.Optional(
      Duration(
        "1s",
        "168h",
        "Retrying ends this long after the first attempt started (a retried attempt still running then is stopped). Default: none on argo; 1h on kfp and vertex (KFP's).",
      ),
    ),
  },
  {
    additionalProperties: false,
    ...validations({
      rule: "!has(self.maxDuration) || duration(self.maxDuration) >= duration(self.duration)",
      message: "maxDuration must be at least duration",
      fieldPath: ".maxDuration",
    }),
  },
);

const Retry = Type.Object(
  {
    limit: Type.Integer({
      minimum: 1,
      maximum: 100,
      description: "Retries after the first attempt (at most limit + 1 attempts).",
    }),
    policy: Type.Optional(
      StringEnum(retryPolicies, {
        description:
          "Which failures are retried: OnFailure (the step's container failed; the default), OnError (an error of Argo's rather than the container's: its pod could not run, its init or wait container failed), Always (both). kfp and vertex: OnFailure only.",
      }),
    ),
    backoff: Type.Optional(Backoff),
  },
  { additionalProperties: false, description: "Retries of this step when it fails." },
);

/**
 * The name of a step's input or output: a Python identifier in lower case, as a kfp.dsl component's
 * argument is (the IR uses it as written), and a valid Argo parameter and artifact name.
 */
export const ioNamePattern = "^[a-z][a-z0-9_]*$";
const IoName = Type.String({ pattern: ioNamePattern, maxLength: 63 });
const ioList = <T extends TSchema>(item: T, description: string, maxItems = 16) =>
  Type.Array(item, {
    description,
    maxItems,
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["name"],
  });

const StepOutputReference = {
  step: Type.String({
    pattern: dnsLabelPattern,
    maxLength: 63,
    description: "The step whose output this is (taking it makes this step run after that one).",
  }),
  output: Type.String({
    pattern: ioNamePattern,
    maxLength: 63,
    description: "The name of that step's output.",
  }),
};

const Outputs = Type.Object(
  {
    parameters: Type.Optional(
      ioList(
        Type.Object({ name: IoName }, { additionalProperties: false }),
        "Values the step writes to the file `{{outputs.parameters.<name>.path}}` (its content, as a string, is the value).",
      ),
    ),
    artifacts: Type.Optional(
      ioList(
        Type.Object({ name: IoName }, { additionalProperties: false }),
        "Files or directories the step writes at `{{outputs.artifacts.<name>.path}}`, stored in the backend's artifact store.",
      ),
    ),
  },
  { additionalProperties: false, description: "What the step produces for later steps (and the Run)." },
);

const Inputs = Type.Object(
  {
    parameters: Type.Optional(
      ioList(
        Type.Object(
          {
            name: IoName,
            from: Type.Object(
              {
                step: Type.Optional(StepOutputReference.step),
                output: Type.Optional(StepOutputReference.output),
                parameter: Type.Optional(
                  Type.String({
                    minLength: 1,
                    maxLength: 253,
                    description: "One of the Pipeline's parameters.",
                  }),
                ),
              },
              {
                additionalProperties: false,
                ...validations({
                  rule: "has(self.parameter) ? !has(self.step) && !has(self.output) : has(self.step) && has(self.output)",
                  message:
                    "an input parameter is from a step's output (step and output) or from a parameter of the pipeline (parameter)",
                }),
              },
            ),
          },
          { additionalProperties: false },
        ),
        "Values the step takes, as `{{inputs.parameters.<name>}}` in its command and args (at most 10: the API server's CEL cost budget for checking them against 256 pipeline parameters; a step may use more of the Pipeline's parameters as `{{workflow.parameters.<name>}}`).",
        10,
      ),
    ),
    artifacts: Type.Optional(
      ioList(
        Type.Object(
          {
            name: IoName,
            from: Type.Object(
              { step: StepOutputReference.step, output: StepOutputReference.output },
              { additionalProperties: false },
            ),
          },
          { additionalProperties: false },
        ),
        "Another step's output artifacts, put at `{{inputs.artifacts.<name>.path}}` before the step starts.",
      ),
    ),
  },
  {
    additionalProperties: false,
    description: "What the step takes from other steps and the pipeline's parameters.",
  },
);

/** A step's inputs and outputs share one namespace (the arguments of a kfp.dsl component). */
const ioNames = (list: string) => `(has(self.${list}) ? self.${list}.map(x, x.name) : [])`;

const Step = Type.Object(
  {
    name: Type.String({ pattern: dnsLabelPattern, maxLength: 63 }),
    image: Type.Optional(Type.String({ minLength: 1, description: "Defaults to the pipeline's image." })),
    command: Type.Optional(Type.Array(Type.String(), { maxItems: 64 })),
    args: Type.Optional(Type.Array(Type.String(), { maxItems: 256 })),
    env: Type.Optional(NamedValues("Environment of this step (added to the pipeline's).")),
    dependsOn: Type.Optional(
      Type.Array(Type.String({ maxLength: 63 }), { maxItems: 16, "x-kubernetes-list-type": "set" }),
    ),
    resources: Type.Optional(
      Type.Object(
        { requests: Type.Optional(StringMap()), limits: Type.Optional(StringMap()) },
        { additionalProperties: false },
      ),
    ),
    retry: Type.Optional(Retry),
    inputs: Type.Optional(Inputs),
    outputs: Type.Optional(Outputs),
    caching: Type.Optional(
      CachePolicy(
        "Caching of this step (over the Pipeline's and the Provider's; a Run's caching overrides it).",
      ),
    ),
  },
  {
    additionalProperties: false,
    ...validations(
      {
        rule: `!has(self.outputs) || ${ioNames("outputs.parameters")}.all(n, !(n in ${ioNames("outputs.artifacts")}))`,
        message: "an output parameter and an output artifact of a step cannot have the same name",
        fieldPath: ".outputs",
      },
      {
        rule: `!has(self.inputs) || !has(self.outputs) || (${ioNames("inputs.parameters")} + ${ioNames("inputs.artifacts")}).all(n, !(n in ${ioNames("outputs.parameters")} + ${ioNames("outputs.artifacts")}))`,
        message: "a step's inputs and outputs cannot share a name",
        fieldPath: ".inputs",
      },
      {
        rule: `!has(self.inputs) || ${ioNames("inputs.parameters")}.all(n, !(n in ${ioNames("inputs.artifacts")}))`,
        message: "an input parameter and an input artifact of a step cannot have the same name",
        fieldPath: ".inputs",
      },
    ),
  },
);

export const PipelineKind = defineKind({
  group,
  version,
  kind: "Pipeline",
  plural: "pipelines",
  singular: "pipeline",
  shortNames: ["pl"],
  scope: "Namespaced",
  description:
    "An ML pipeline: steps forming a DAG, registered with its Provider's backend (a new version per change).",
  spec: Type.Object(
    {
      provider: ProviderReference,
      image: Type.Optional(Type.String({ minLength: 1, description: "Default image of the steps." })),
      steps: Type.Array(Step, {
        minItems: 1,
        maxItems: 32,
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
      }),
      parameters: Type.Optional(
        Type.Array(
          Type.Object(
            { name: Type.String({ minLength: 1, maxLength: 253 }), default: Type.Optional(Type.String()) },
            { additionalProperties: false },
          ),
          { maxItems: 256, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"] },
        ),
      ),
      env: Type.Optional(NamedValues("Environment of every step.")),
      beamArgs: Type.Optional(NamedValues("Beam arguments (override the Provider's defaultBeamArgs).")),
      caching: Type.Optional(
        CachePolicy("Caching of every step that sets none itself (over the Provider's defaultCaching)."),
      ),
    },
    {
      additionalProperties: false,
      ...validations(
        {
          rule: "has(self.image) || self.steps.all(s, has(s.image))",
          message: "every step needs an image: set spec.image or the step's image",
          fieldPath: ".steps",
        },
        {
          rule: "self.steps.all(s, !has(s.dependsOn) || s.dependsOn.all(d, d != s.name && self.steps.exists(t, t.name == d)))",
          message: "dependsOn must name other steps of this pipeline",
          fieldPath: ".steps",
        },
        {
          rule: "self.steps.all(s, !has(s.inputs) || ((!has(s.inputs.parameters) || s.inputs.parameters.all(p, !has(p.from.step) || p.from.step != s.name)) && (!has(s.inputs.artifacts) || s.inputs.artifacts.all(a, a.from.step != s.name))))",
          message: "a step cannot take its own outputs as inputs (inputs.*.from.step names the step itself)",
          fieldPath: ".steps",
        },
        {
          rule: "self.steps.all(s, !has(s.inputs) || ((!has(s.inputs.parameters) || s.inputs.parameters.all(p, !has(p.from.step) || self.steps.exists(t, t.name == p.from.step))) && (!has(s.inputs.artifacts) || s.inputs.artifacts.all(a, self.steps.exists(t, t.name == a.from.step)))))",
          message: "inputs.*.from.step must name a step of this pipeline",
          fieldPath: ".steps",
        },
        {
          rule: "self.steps.all(s, !has(s.inputs) || !has(s.inputs.parameters) || s.inputs.parameters.all(p, !has(p.from.step) || self.steps.exists(t, t.name == p.from.step && has(t.outputs) && has(t.outputs.parameters) && t.outputs.parameters.exists(o, o.name == p.from.output))))",
          message:
            "inputs.parameters[].from.output must name an output parameter of that step (its outputs.parameters)",
          fieldPath: ".steps",
        },
        {
          rule: "self.steps.all(s, !has(s.inputs) || !has(s.inputs.artifacts) || s.inputs.artifacts.all(a, self.steps.exists(t, t.name == a.from.step && has(t.outputs) && has(t.outputs.artifacts) && t.outputs.artifacts.exists(o, o.name == a.from.output))))",
          message:
            "inputs.artifacts[].from.output must name an output artifact of that step (its outputs.artifacts)",
          fieldPath: ".steps",
        },
        {
          rule: "self.steps.all(s, !has(s.inputs) || !has(s.inputs.parameters) || s.inputs.parameters.all(p, !has(p.from.parameter) || (has(self.parameters) && self.parameters.exists(q, q.name == p.from.parameter))))",
          message: "inputs.parameters[].from.parameter must name one of spec.parameters",
          fieldPath: ".steps",
        },
      ),
    },
  ),
  status: Type.Object(synchronizedStatus),
  printerColumns: [...providerColumns, { name: "Version", type: "string", jsonPath: ".status.version" }],
});

export type Pipeline = Resource<typeof PipelineKind>;
export type PipelineStep = Pipeline["spec"]["steps"][number];
export type StepRetry = NonNullable<PipelineStep["retry"]>;
export type StepInputs = NonNullable<PipelineStep["inputs"]>;
export type StepOutputs = NonNullable<PipelineStep["outputs"]>;
