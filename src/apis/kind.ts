import type { V1ObjectMeta } from "@kubernetes/client-node";
import type { Static, TSchema } from "@sinclair/typebox";
import type { ResourceType } from "../kube/types.ts";

/** A CEL rule as the API server evaluates it (`x-kubernetes-validations`). */
export interface CelRule {
  rule: string;
  message: string;
  /** The field the error names, e.g. `.spec.storage.artifactsSize`. */
  fieldPath?: string;
  reason?: "FieldValueInvalid" | "FieldValueForbidden" | "FieldValueRequired" | "FieldValueDuplicate";
  /** Only for transition rules evaluated against `oldSelf`. */
  optionalOldSelf?: boolean;
}

export interface PrinterColumn {
  name: string;
  type: "string" | "integer" | "number" | "boolean" | "date";
  jsonPath: string;
  description?: string;
  priority?: number;
}

/**
 * One Slipway kind, defined once: its TypeScript types come from the TypeBox schemas (`Static`), its
 * CRD is generated from them (src/apis/crd.ts), and the REST API validates with the same schemas.
 */
export interface KindDefinition<Spec extends TSchema = TSchema, Status extends TSchema = TSchema> {
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  scope: "Namespaced" | "Cluster";
  description: string;
  spec: Spec;
  status: Status;
  printerColumns: PrinterColumn[];
  /** Rules on the whole object (e.g. comparing spec fields); field-level rules go in the schemas via `x-kubernetes-validations`. */
  validations?: CelRule[];
}

export interface Kind<Spec extends TSchema = TSchema, Status extends TSchema = TSchema>
  extends KindDefinition<Spec, Status> {
  apiVersion: string;
}

export function defineKind<Spec extends TSchema, Status extends TSchema>(
  definition: KindDefinition<Spec, Status>,
): Kind<Spec, Status> {
  return { ...definition, apiVersion: `${definition.group}/${definition.version}` };
}

/** An object of a Slipway kind as read from the API server. */
export interface Resource<K extends Kind> {
  apiVersion: string;
  kind: string;
  metadata: V1ObjectMeta;
  spec: Static<K["spec"]>;
  status?: Static<K["status"]>;
}

export type SpecOf<K extends Kind> = Static<K["spec"]>;
export type StatusOf<K extends Kind> = Static<K["status"]>;

/** A CRD's name: `<plural>.<group>` (of a Slipway kind or any ResourceType). */
export const crdName = (kind: { plural: string; group: string }): string => `${kind.plural}.${kind.group}`;

/** The runtime's ResourceType of a Slipway kind (its scope honoured). */
export function resourceTypeOf(kind: Kind): ResourceType {
  return {
    group: kind.group,
    version: kind.version,
    kind: kind.kind,
    plural: kind.plural,
    namespaced: kind.scope === "Namespaced",
  };
}
