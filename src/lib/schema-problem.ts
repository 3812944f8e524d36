/**
 * The one rule for saying where a value breaks its TypeBox schema: the first error, as the field's
 * path (`spec.steps[0].name`: array indices in brackets, under `root`) and TypeBox's rule for it.
 */
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

export interface SchemaProblem {
  field: string;
  rule: string;
}

/** A JSON pointer (`/steps/0/name`) as a field path under `root`; the root itself when empty. */
export function fieldPath(pointer: string, root = ""): string {
  const path = pointer
    .split("/")
    .slice(1)
    .reduce((field, part) => (/^[0-9]+$/.test(part) ? `${field}[${part}]` : `${field}.${part}`), root);
  if (path === "") return "(root)";
  return path.startsWith(".") ? path.slice(1) : path;
}

/** Where `value` first breaks `schema`; undefined when it holds. Pure. */
export function schemaProblem(schema: TSchema, value: unknown, root = ""): SchemaProblem | undefined {
  const first = Value.Errors(schema, value).First();
  return first ? { field: fieldPath(first.path, root), rule: first.message } : undefined;
}

/** `schemaProblem` as one line, `field: rule`. */
export const describeProblem = (problem: SchemaProblem): string => `${problem.field}: ${problem.rule}`;
