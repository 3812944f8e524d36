/**
 * A Provider's `spec.parameters` checked against its backend's TypeBox schema (pure): defaults
 * filled on a copy, the first field that breaks a rule named in the error. What the schema cannot
 * say (one of two fields, the outbound policy) each backend checks after.
 */
import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { describeProblem, schemaProblem } from "../lib/schema-problem.ts";
import type { ProviderConfig } from "./backend.ts";

export const parametersField = (path: string) => `spec.parameters.${path}`;

export class ProviderParametersError extends Error {
  override name = "ProviderParametersError";
}

export function checkedParameters<T extends TSchema>(schema: T, provider: ProviderConfig): Static<T> {
  const parameters = Value.Default(schema, structuredClone(provider.spec.parameters ?? {}));
  const problem = schemaProblem(schema, parameters, "spec.parameters");
  if (problem) throw new ProviderParametersError(describeProblem(problem));
  return parameters as Static<T>;
}
