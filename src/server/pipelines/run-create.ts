/** `POST /namespaces/:namespace/runs`: a Run of a Pipeline, its parameters checked against the Pipeline's. */
import { type Static, Type } from "@sinclair/typebox";
import { PipelineReference, RunKind } from "../../apis/pipelines/index.ts";
import type { Pipeline } from "../../apis/pipelines/pipeline.ts";
import { HttpError } from "../errors.ts";
import { Name } from "../params.ts";

export const CreateRunBody = Type.Object(
  {
    name: Type.Optional({
      ...Name,
      description: "Name of the Run; default: the pipeline's name and a suffix",
    }),
    pipeline: PipelineReference,
    experimentName: Type.Optional(Type.String({ maxLength: 253 })),
    parameters: Type.Optional(
      Type.Array(
        Type.Object(
          { name: Type.String({ minLength: 1, maxLength: 253 }), value: Type.String({ maxLength: 65536 }) },
          { additionalProperties: false },
        ),
        { maxItems: 256 },
      ),
    ),
  },
  { additionalProperties: false },
);
export type CreateRunBody = Static<typeof CreateRunBody>;

/** `name` or `name:version` → the Pipeline's name. */
export const pipelineName = (reference: string) => reference.split(":")[0] ?? reference;

/** Every parameter given is one the Pipeline declares, given once; one without a default is given. */
function checkParameters(pipeline: Pipeline, given: CreateRunBody["parameters"] = []): void {
  const declared = pipeline.spec.parameters ?? [];
  const names = declared.map((parameter) => parameter.name);
  const seen = new Set<string>();
  for (const [index, parameter] of given.entries()) {
    const field = `body.parameters.${index}.name`;
    if (!names.includes(parameter.name)) {
      const known = names.length ? `it has ${names.join(", ")}` : "it has none";
      throw new HttpError(
        400,
        `${field}: Pipeline ${pipeline.metadata.name} has no parameter ${parameter.name} (${known})`,
        field,
      );
    }
    if (seen.has(parameter.name))
      throw new HttpError(400, `${field}: parameter ${parameter.name} is given twice`, field);
    seen.add(parameter.name);
  }
  const missing = declared.find((parameter) => parameter.default === undefined && !seen.has(parameter.name));
  if (missing)
    throw new HttpError(
      400,
      `body.parameters: parameter ${missing.name} has no default: give it a value`,
      "body.parameters",
    );
}

/** The Run to create for `body` in `namespace`, on the Provider the Pipeline uses (throws a 400 naming the field). */
export function runForPipeline(pipeline: Pipeline, body: CreateRunBody, namespace: string) {
  checkParameters(pipeline, body.parameters);
  const name = pipelineName(body.pipeline);
  const metadata = body.name ? { name: body.name, namespace } : { generateName: `${name}-`, namespace };
  return {
    apiVersion: RunKind.apiVersion,
    kind: RunKind.kind,
    metadata,
    spec: {
      provider: pipeline.spec.provider,
      pipeline: body.pipeline,
      ...(body.experimentName ? { experimentName: body.experimentName } : {}),
      ...(body.parameters?.length ? { parameters: body.parameters } : {}),
    },
  };
}
