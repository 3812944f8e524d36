/** Schema helpers for what TypeBox has no word for but a CRD needs. */
import { type TUnsafe, Type } from "@sinclair/typebox";
import type { CelRule } from "./kind.ts";

/** A free-form object the API server stores as given (`x-kubernetes-preserve-unknown-fields`). */
export function preserveUnknownFields(description: string): TUnsafe<Record<string, unknown>> {
  return Type.Unsafe<Record<string, unknown>>({
    type: "object",
    "x-kubernetes-preserve-unknown-fields": true,
    description,
  });
}

/** A value that is an integer or a string, like a container port name or `25%` (`x-kubernetes-int-or-string`). */
export function intOrString(description: string): TUnsafe<number | string> {
  return Type.Unsafe<number | string>({
    description,
    "x-kubernetes-int-or-string": true,
    anyOf: [{ type: "integer" }, { type: "string" }],
  });
}

/** CEL rules for a schema node: `Type.String({ ...validations(rule) })`. */
export function validations(...rules: CelRule[]): { "x-kubernetes-validations": CelRule[] } {
  return { "x-kubernetes-validations": rules };
}

/** The name of a Kubernetes object (a DNS-1123 subdomain), as a field that names one. */
export const ObjectName = (description?: string) =>
  Type.String({
    minLength: 1,
    maxLength: 253,
    pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
    ...(description ? { description } : {}),
  });
