/** A whole Pipeline object from a file's text (YAML or JSON), checked against the kind's schema. */
import { Kind, type TSchema, Type } from "@sinclair/typebox";
import { PipelineKind } from "../../apis/pipelines/pipeline.ts";
import { schemaProblem } from "../../lib/schema-problem.ts";
import { parseYaml } from "../../lib/yaml.ts";
import type { CompileResult, KfpPipeline } from "./compile.ts";

type ReadResult = { ok: true; pipeline: KfpPipeline } | Extract<CompileResult, { ok: false }>;

/**
 * `schema` as TypeBox's checker can take it: the CRD-only `Unsafe` string maps become records of
 * strings, any other `Unsafe` is left to the API server.
 */
function checkable(schema: TSchema): TSchema {
  if (schema[Kind] === "Unsafe")
    return schema.type === "object" ? Type.Record(Type.String(), Type.String()) : Type.Unknown();
  const copy: TSchema = { ...schema };
  if (schema.properties)
    copy.properties = Object.fromEntries(
      Object.entries(schema.properties as Record<string, TSchema>).map(([k, v]) => [k, checkable(v)]),
    );
  if (schema.items) copy.items = checkable(schema.items as TSchema);
  return copy;
}

const specSchema = checkable(PipelineKind.spec);

const failure = (field: string, rule: string) => ({ ok: false as const, field, error: `${field}: ${rule}` });

export function readPipelineDocument(text: string): ReadResult {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    return failure("(file)", `not one YAML or JSON document: ${(error as Error).message.split("\n")[0]}`);
  }
  const object = (document ?? {}) as { kind?: unknown; metadata?: { name?: unknown }; spec?: unknown };
  if (object.kind !== PipelineKind.kind) return failure("kind", `must be ${PipelineKind.kind}`);
  const name = object.metadata?.name;
  if (typeof name !== "string" || !name) return failure("metadata.name", "a Pipeline needs a name");
  const problem = schemaProblem(specSchema, object.spec, "spec");
  if (problem) return failure(problem.field, problem.rule);
  return { ok: true, pipeline: { name, spec: object.spec as KfpPipeline["spec"] } };
}
