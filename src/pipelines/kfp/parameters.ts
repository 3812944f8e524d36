/** Slipway's pipeline parameters as KFP input parameters: their type, default and references. */
import type { ParameterType, ParameterValue } from "./ir.ts";

/**
 * A Slipway parameter has no type field; its default says it, as the literal would in Python:
 * `true`/`false` → BOOLEAN, an integer → NUMBER_INTEGER, a decimal → NUMBER_DOUBLE, anything else
 * (and no default) → STRING.
 */
export function parameterType(defaultValue: string | undefined): ParameterType {
  if (defaultValue === undefined) return "STRING";
  if (defaultValue === "true" || defaultValue === "false") return "BOOLEAN";
  if (/^-?(0|[1-9][0-9]*)$/.test(defaultValue) && Number.isSafeInteger(Number(defaultValue)))
    return "NUMBER_INTEGER";
  if (/^-?(0|[1-9][0-9]*)\.[0-9]+([eE][-+]?[0-9]+)?$/.test(defaultValue)) return "NUMBER_DOUBLE";
  return "STRING";
}

/** `text` as a value of `type` (the IR's `defaultValue`, a run's runtime parameter). */
export function typedValue(type: ParameterType, text: string): ParameterValue | undefined {
  switch (type) {
    case "STRING":
      return text;
    case "BOOLEAN":
      return text === "true" ? true : text === "false" ? false : undefined;
    case "NUMBER_INTEGER":
      return /^-?[0-9]+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined;
    case "NUMBER_DOUBLE":
      return /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/.test(text) ? Number(text) : undefined;
  }
}

/** How a step names a pipeline parameter in its command and args (the argo backend's syntax). */
export const parameterReference = /\{\{\s*workflow\.parameters\.([^}\s]+)\s*\}\}/g;

/** KFP's placeholder for a component's input parameter. */
export const inputPlaceholder = (name: string) => `{{$.inputs.parameters['${name}']}}`;

/** The Slipway names of the parameters `text` refers to. */
export function referencedParameters(text: string): string[] {
  return [...text.matchAll(parameterReference)].map((match) => match[1] as string);
}

/** `text` with each reference replaced by the placeholder of its KFP input. */
export function withPlaceholders(text: string, kfpNames: ReadonlyMap<string, string>): string {
  return text.replace(parameterReference, (_, name: string) => inputPlaceholder(kfpNames.get(name) ?? name));
}
