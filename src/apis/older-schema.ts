/**
 * An older served version's schema and printer columns, derived from the storage version's
 * (versions.ts): its renamed fields moved, the fields it lacks removed. Pure.
 */
import type { PrinterColumn } from "./kind.ts";
import { SchemaError, type SchemaNode } from "./structural.ts";
import type { OlderVersion } from "./versions.ts";

const clone = <T>(value: T): T => structuredClone(value);

function split(path: string): { parents: string[]; leaf: string } {
  const names = path.split(".");
  return { parents: names.slice(0, -1), leaf: names.at(-1) ?? "" };
}

/** The object node at `names` below `root`, or a SchemaError naming the path. */
function objectNode(root: SchemaNode, names: string[], where: string): SchemaNode {
  let node = root;
  for (const name of names) {
    const next = (node.properties as Record<string, SchemaNode> | undefined)?.[name];
    if (!next) throw new SchemaError(`${where}: .${names.join(".")} is not an object of the schema`);
    node = next;
  }
  if (node.type !== "object" || !node.properties)
    throw new SchemaError(`${where}: .${names.join(".")} is not an object with fields`);
  return node;
}

/** Takes the field `path` out of `root` (its `required` entry too); the CEL rules on its object must not name it. */
function takeField(root: SchemaNode, path: string, where: string): { schema: SchemaNode; required: boolean } {
  const { parents, leaf } = split(path);
  const parent = objectNode(root, parents, where);
  const properties = parent.properties as Record<string, SchemaNode>;
  const schema = properties[leaf];
  if (!schema) throw new SchemaError(`${where}: .${path} is not a field of the schema`);
  const rules = (parent["x-kubernetes-validations"] as { rule: string }[] | undefined) ?? [];
  if (rules.some((rule) => new RegExp(`\\bself\\.${leaf}\\b`).test(rule.rule)))
    throw new SchemaError(`${where}: .${path} is named by a CEL rule of its object; it cannot move`);
  delete properties[leaf];
  const required = (parent.required as string[] | undefined) ?? [];
  const rest = required.filter((name) => name !== leaf);
  if (rest.length > 0) parent.required = rest;
  else delete parent.required;
  return { schema, required: required.includes(leaf) };
}

function putField(
  root: SchemaNode,
  path: string,
  field: { schema: SchemaNode; required: boolean },
  where: string,
) {
  const { parents, leaf } = split(path);
  const parent = objectNode(root, parents, where);
  const properties = parent.properties as Record<string, SchemaNode>;
  if (properties[leaf]) throw new SchemaError(`${where}: .${path} is already a field of the schema`);
  properties[leaf] = field.schema;
  if (field.required) parent.required = [...((parent.required as string[] | undefined) ?? []), leaf];
}

/** The older version's object schema from the storage version's `root`. */
export function olderSchema(root: SchemaNode, older: OlderVersion, kind: string): SchemaNode {
  const where = `kind ${kind} ${older.name}`;
  const schema = clone(root);
  for (const path of older.lacks) takeField(schema, path, where);
  const moved = Object.entries(older.renames).map(
    ([from, to]) => [takeField(schema, from, where), to] as const,
  );
  for (const [field, to] of moved) putField(schema, to, field, where);
  return schema;
}

/** The older version's printer columns: renamed paths followed, then its own changes. */
export function olderPrinterColumns(columns: PrinterColumn[], older: OlderVersion): PrinterColumn[] {
  const renamed = columns.map((column) => {
    const to = older.renames[column.jsonPath.slice(1)];
    return to ? { ...column, jsonPath: `.${to}` } : column;
  });
  return older.printerColumns ? older.printerColumns(renamed) : renamed;
}
