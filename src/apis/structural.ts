/**
 * Turns a TypeBox (JSON Schema) schema into a Kubernetes *structural* OpenAPI v3 schema, or fails
 * naming the field and the rule it breaks. Structural means: every node has a `type` (or is
 * int-or-string / preserves unknown fields), objects list their `properties` or one
 * `additionalProperties` schema (a map), no `$ref`, no `anyOf`/`oneOf` that changes the type.
 * See https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#specifying-a-structural-schema
 */

/** An OpenAPI v3 schema node as a CRD carries it. */
export type SchemaNode = Record<string, unknown>;

/** A TypeBox schema the API server would refuse, or would silently mangle. */
export class SchemaError extends Error {
  override name = "SchemaError";
}

const TYPES = new Set(["object", "array", "string", "integer", "number", "boolean"]);

/** Keywords copied as they are (after the checks below). */
const PASS_THROUGH = new Set([
  "description",
  "title",
  "format",
  "default",
  "example",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "multipleOf",
  "nullable",
  "enum",
]);

/** TypeBox/JSON Schema bookkeeping that has no meaning in a CRD. */
const DROPPED = new Set(["$id", "$schema", "additionalItems", "examples"]);

const ANY_KEY_PATTERN = "^(.*)$";

function isRecord(value: unknown): value is SchemaNode {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(path: string, rule: string): never {
  throw new SchemaError(`${path || "<root>"}: ${rule}`);
}

function literalType(value: unknown, path: string): string {
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return fail(path, `a literal must be a string, number or boolean, not ${JSON.stringify(value)}`);
}

/**
 * `anyOf` is structural only in narrow forms. We accept the two TypeBox produces for ordinary
 * fields — a union of literals (an enum) and `T | null` (nullable) — and refuse the rest.
 */
function collapseUnion(node: SchemaNode, path: string): SchemaNode {
  const { anyOf, ...rest } = node;
  if (!Array.isArray(anyOf) || anyOf.length === 0) return fail(path, "anyOf must be a non-empty list");
  const variants = anyOf.filter(isRecord);
  const nonNull = variants.filter((v) => v.type !== "null");
  if (nonNull.length < variants.length && nonNull.length === 1) {
    return { ...rest, ...(nonNull[0] as SchemaNode), nullable: true };
  }
  if (nonNull.length > 0 && nonNull.every((v) => "const" in v)) {
    const values = nonNull.map((v) => v.const);
    const types = new Set(values.map((v) => literalType(v, path)));
    if (types.size !== 1) {
      return fail(path, `a union of literals must have one type, found ${[...types].join(" and ")}`);
    }
    const nullable = nonNull.length < variants.length ? { nullable: true } : {};
    return { ...rest, type: [...types][0], enum: values, ...nullable };
  }
  return fail(
    path,
    "a union (anyOf) is not structural: use a union of literals (an enum), T | null, or intOrString() from src/apis/schema.ts",
  );
}

function normalizeExclusiveBounds(node: SchemaNode, out: SchemaNode): void {
  // JSON Schema 2019 (TypeBox) makes exclusive bounds numbers; OpenAPI v3 makes them flags.
  for (const [bound, flag] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    const value = node[bound];
    if (typeof value === "number") {
      out[flag] = value;
      out[bound] = true;
    } else if (typeof value === "boolean") {
      out[bound] = value;
    }
  }
}

function convertObjectShape(node: SchemaNode, out: SchemaNode, path: string): void {
  const properties = node.properties;
  if (properties !== undefined) {
    if (!isRecord(properties)) fail(path, "properties must be an object");
    out.properties = Object.fromEntries(
      Object.entries(properties).map(([name, child]) => [name, convert(child, `${path}.${name}`)]),
    );
    if (Array.isArray(node.required) && node.required.length > 0) out.required = [...node.required];
  }
  const patternProperties = node.patternProperties;
  if (patternProperties !== undefined) {
    if (!isRecord(patternProperties)) fail(path, "patternProperties must be an object");
    const patterns = Object.keys(patternProperties);
    if (patterns.length !== 1 || patterns[0] !== ANY_KEY_PATTERN) {
      fail(
        path,
        `a map's keys cannot be restricted by patternProperties (${patterns.join(", ")}); use a CEL rule`,
      );
    }
    if (out.properties) fail(path, "an object cannot have both properties and map values");
    out.additionalProperties = convert(patternProperties[ANY_KEY_PATTERN], `${path}[*]`);
  }
  const additional = node.additionalProperties;
  if (isRecord(additional)) {
    if (out.properties) fail(path, "an object cannot have both properties and additionalProperties");
    out.additionalProperties = convert(additional, `${path}[*]`);
  } else if (additional === true) {
    out["x-kubernetes-preserve-unknown-fields"] = true;
  }
  // additionalProperties: false is dropped: the API server prunes unknown fields already.
}

function convert(input: unknown, path: string): SchemaNode {
  if (!isRecord(input)) return fail(path, "a schema must be an object");
  let node = input;
  if ("anyOf" in node && node["x-kubernetes-int-or-string"] !== true) node = collapseUnion(node, path);
  if ("const" in node) {
    const { const: value, ...rest } = node;
    node = { ...rest, type: rest.type ?? literalType(value, path), enum: [value] };
  }
  for (const keyword of ["$ref", "oneOf", "allOf", "not", "if", "then", "else", "dependentSchemas"]) {
    if (keyword in node) fail(path, `${keyword} is not allowed in a CRD schema (it is not structural)`);
  }

  const out: SchemaNode = {};
  const intOrString = node["x-kubernetes-int-or-string"] === true;
  const preservesUnknown = node["x-kubernetes-preserve-unknown-fields"] === true;
  if (node.type !== undefined) {
    if (typeof node.type !== "string" || !TYPES.has(node.type)) {
      fail(path, `type must be one of ${[...TYPES].join(", ")}, not ${JSON.stringify(node.type)}`);
    }
    out.type = node.type;
  } else if (!intOrString && !preservesUnknown) {
    fail(
      path,
      "every field needs a type (Type.Unknown/Type.Any have none): use preserveUnknownFields() or intOrString() from src/apis/schema.ts",
    );
  }

  for (const [key, value] of Object.entries(node)) {
    if (key === "type" || DROPPED.has(key)) continue;
    if (PASS_THROUGH.has(key) || key.startsWith("x-kubernetes-")) out[key] = value;
    else if (key === "anyOf" && intOrString) out.anyOf = value;
    else if (
      !["properties", "required", "patternProperties", "additionalProperties", "items"].includes(key)
    ) {
      if (key !== "exclusiveMinimum" && key !== "exclusiveMaximum") {
        fail(path, `keyword "${key}" is not supported in a CRD schema`);
      }
    }
  }
  normalizeExclusiveBounds(node, out);

  if (out.type === "object") convertObjectShape(node, out, path);
  else if (node.properties || node.patternProperties || isRecord(node.additionalProperties)) {
    fail(path, `only an object can have properties (type is ${String(out.type)})`);
  }
  if (out.type === "array") {
    if (Array.isArray(node.items)) fail(path, "tuples (items as a list) are not allowed: use an object");
    if (!isRecord(node.items)) fail(path, "an array needs an items schema");
    out.items = convert(node.items, `${path}[]`);
  } else if (node.items !== undefined) {
    fail(path, `only an array can have items (type is ${String(out.type)})`);
  }
  if (out.default !== undefined) out.default = completeDefault(out, out.default);
  return out;
}

/**
 * The API server validates an object's `default` as given, while at runtime it also fills the
 * defaults of the fields inside it. Filling them here makes `default: {}` on an object whose
 * required fields have defaults valid, and means exactly what the API server would store.
 */
function completeDefault(node: SchemaNode, value: unknown): unknown {
  if (!isRecord(value) || !isRecord(node.properties)) return value;
  const completed: Record<string, unknown> = { ...value };
  for (const [name, child] of Object.entries(node.properties as Record<string, SchemaNode>)) {
    const present = completed[name] !== undefined;
    if (present) completed[name] = completeDefault(child, completed[name]);
    else if (child.default !== undefined) completed[name] = completeDefault(child, child.default);
  }
  return completed;
}

/**
 * The structural OpenAPI v3 schema of a TypeBox schema. `path` names the root in errors
 * (e.g. `.spec`), so a failure reads `.spec.storage.size: every field needs a type ...`.
 */
export function structuralSchema(schema: unknown, path = ""): SchemaNode {
  return convert(JSON.parse(JSON.stringify(schema)), path);
}
