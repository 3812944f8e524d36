/** `value` as a plain object's fields, or undefined when it is none (null, an array, a scalar): for reading parsed JSON or YAML. */
export const plainObject = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
