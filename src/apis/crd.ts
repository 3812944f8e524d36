import type { V1CustomResourceDefinition } from "@kubernetes/client-node";
import { crdName, type Kind, type PrinterColumn } from "./kind.ts";
import { olderPrinterColumns, olderSchema } from "./older-schema.ts";
import { SchemaError, type SchemaNode, structuralSchema } from "./structural.ts";
import { conversionPath, olderVersionsOf } from "./versions.ts";
import { toClientModel } from "./wire.ts";

/** Every Slipway CRD is in this category: `kubectl get slipway` lists them all. */
export const category = "slipway";

/** Turns a TypeBox schema into plain OpenAPI v3 (drops TypeBox's symbol keys and `$id`s). */
export function openApi(schema: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema, (key, value) => (key === "$id" ? undefined : value)));
}

const DNS_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/;

/** Checks the names of a kind the way the API server would, so a bad definition fails at generation. */
export function checkKindNames(kind: Kind): void {
  const where = `kind ${kind.kind}`;
  if (!DNS_SUBDOMAIN.test(kind.group))
    throw new SchemaError(`${where}: group "${kind.group}" must be a DNS subdomain`);
  if (!/^v\d+((alpha|beta)\d+)?$/.test(kind.version)) {
    throw new SchemaError(`${where}: version "${kind.version}" must look like v1, v1beta1 or v1alpha1`);
  }
  if (!/^[A-Z][A-Za-z0-9]*$/.test(kind.kind)) throw new SchemaError(`${where}: kind must be UpperCamelCase`);
  for (const [field, value] of [
    ["plural", kind.plural],
    ["singular", kind.singular],
    ...kind.shortNames.map((n) => ["shortNames", n] as const),
  ] as const) {
    if (!DNS_LABEL.test(value))
      throw new SchemaError(`${where}: ${field} "${value}" must be a lowercase DNS label`);
  }
  // Kubernetes conventions for every Slipway CRD (docs/api-machinery.md, "A kind, defined once").
  if (kind.shortNames.length === 0) throw new SchemaError(`${where}: shortNames must have at least one name`);
  if (kind.printerColumns.length === 0)
    throw new SchemaError(`${where}: printerColumns must have at least one column`);
  if (!kind.description.trim())
    throw new SchemaError(`${where}: description must not be empty (kubectl explain shows it)`);
  for (const column of kind.printerColumns) {
    if (!column.jsonPath.startsWith(".")) {
      throw new SchemaError(`${where}: printer column ${column.name}: jsonPath must start with "."`);
    }
  }
}

/** The schema node a simple dotted path (`.status.phase`) names in `root`, or undefined. */
function nodeAt(root: SchemaNode, path: string): SchemaNode | undefined {
  let node: SchemaNode | undefined = root;
  for (const name of path.split(".").slice(1)) {
    const properties = node?.properties as Record<string, SchemaNode> | undefined;
    node = properties?.[name] ?? (node?.additionalProperties as SchemaNode | undefined);
    if (!node) return undefined;
  }
  return node;
}

/** A printer column must name a field of the schema (a typo shows an empty column forever). */
function checkPrinterColumns(kind: Kind, columns: PrinterColumn[], root: SchemaNode): void {
  for (const column of columns) {
    const path = column.jsonPath.split("[")[0] ?? "";
    if (path.startsWith(".metadata.")) continue;
    if (!nodeAt(root, path)) {
      throw new SchemaError(
        `kind ${kind.kind}: printer column ${column.name}: ${path} is not a field of the schema`,
      );
    }
  }
}

/** The root schema of a kind's objects: apiVersion, kind, metadata, spec and status. */
export function objectSchema(kind: Kind): SchemaNode {
  const schema: SchemaNode = {
    type: "object",
    description: kind.description,
    properties: {
      apiVersion: {
        type: "string",
        description: "APIVersion defines the versioned schema of this representation of an object.",
      },
      kind: {
        type: "string",
        description: "Kind is a string value representing the REST resource this object represents.",
      },
      metadata: { type: "object" },
      spec: structuralSchema(kind.spec, ".spec"),
      status: structuralSchema(kind.status, ".status"),
    },
    required: ["spec"],
  };
  if (kind.validations?.length) schema["x-kubernetes-validations"] = kind.validations;
  return schema;
}

/** A CustomResourceDefinition as the API server reads it (wire JSON, e.g. for YAML files). */
export type CrdManifest = V1CustomResourceDefinition & Record<string, unknown>;

/**
 * The CustomResourceDefinition of a kind in wire form: structural schema, status subresource,
 * printer columns, short names. Write it as YAML/JSON; for client-node's typed APIs use toCrd().
 */
export interface CrdOptions {
  /**
   * The Service of the operator that converts between the kind's versions (port 443, path /convert);
   * the operator keeps its caBundle (src/webhook/crd-conversion.ts). Without it (or for a kind served at
   * one version) the CRD converts nothing (strategy None): fine while every client uses the storage version.
   */
  conversionService?: { namespace: string; name: string };
}

export function crdManifest(kind: Kind, options: CrdOptions = {}): CrdManifest {
  checkKindNames(kind);
  const schema = objectSchema(kind);
  checkPrinterColumns(kind, kind.printerColumns, schema);
  const version = (
    name: string,
    storage: boolean,
    columns: PrinterColumn[],
    openAPIV3Schema: SchemaNode,
  ) => ({
    name,
    served: true,
    storage,
    subresources: { status: {} },
    additionalPrinterColumns: [
      ...columns,
      { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
    ],
    schema: { openAPIV3Schema },
  });
  const older = olderVersionsOf(kind).map((served) => {
    const columns = olderPrinterColumns(kind.printerColumns, served);
    const derived = olderSchema(schema, served, kind.kind);
    checkPrinterColumns(kind, columns, derived);
    return version(served.name, false, columns, derived);
  });
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: crdName(kind) },
    spec: {
      group: kind.group,
      scope: kind.scope,
      names: {
        kind: kind.kind,
        listKind: `${kind.kind}List`,
        plural: kind.plural,
        singular: kind.singular,
        shortNames: kind.shortNames,
        categories: [category],
      },
      versions: [version(kind.version, true, kind.printerColumns, schema), ...older],
      ...(options.conversionService && older.length > 0
        ? {
            // until the operator sets its CA, a conversion fails (no data converted wrongly or lost)
            conversion: {
              strategy: "Webhook",
              webhook: {
                conversionReviewVersions: ["v1"],
                clientConfig: { service: { ...options.conversionService, path: conversionPath, port: 443 } },
              },
            },
          }
        : {}),
    },
  };
}

/** The CustomResourceDefinition of a kind as @kubernetes/client-node's model (see toClientModel). */
export function toCrd(kind: Kind): V1CustomResourceDefinition {
  return toClientModel<V1CustomResourceDefinition>(crdManifest(kind));
}
