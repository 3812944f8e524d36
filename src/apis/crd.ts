import type { V1CustomResourceDefinition } from "@kubernetes/client-node";
import type { Kind } from "./kind.ts";

/** Every Slipway CRD is in this category: `kubectl get slipway` lists them all. */
export const category = "slipway";

/** Turns a TypeBox schema into plain OpenAPI v3 (drops TypeBox's symbol keys and `$id`s). */
export function openApi(schema: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema, (key, value) => (key === "$id" ? undefined : value)));
}

/** The CustomResourceDefinition of a kind: structural schema, status subresource, printer columns, short names. */
export function toCrd(kind: Kind): V1CustomResourceDefinition {
  const schema: Record<string, unknown> = {
    type: "object",
    description: kind.description,
    properties: {
      apiVersion: { type: "string" },
      kind: { type: "string" },
      metadata: { type: "object" },
      spec: openApi(kind.spec),
      status: openApi(kind.status),
    },
    required: ["spec"],
  };
  if (kind.validations?.length) schema["x-kubernetes-validations"] = kind.validations;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${kind.plural}.${kind.group}` },
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
      versions: [
        {
          name: kind.version,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            ...kind.printerColumns,
            { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
          ],
          schema: { openAPIV3Schema: schema },
        },
      ],
    },
  };
}
