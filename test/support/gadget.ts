/** A test kind of the API machinery's own (group test.slipway.dev): descriptions, a CEL rule and a transition rule. */
import { Type } from "@sinclair/typebox";
import { defineKind } from "../../src/apis/kind.ts";
import { validations } from "../../src/apis/schema.ts";
import type { ResourceType } from "../../src/kube/types.ts";

export const gadgetKind = defineKind({
  group: "test.slipway.dev",
  version: "v1alpha1",
  kind: "Gadget",
  plural: "gadgets",
  singular: "gadget",
  shortNames: ["gdt"],
  scope: "Namespaced",
  description: "A Gadget exercises the generated CRD machinery in tests.",
  spec: Type.Object(
    {
      size: Type.Integer({
        minimum: 1,
        description: "How big the gadget is; it may grow but never shrink.",
        ...validations({ rule: "self >= oldSelf", message: "may grow but not shrink" }),
      }),
      minReplicas: Type.Integer({ minimum: 0, default: 1, description: "The fewest replicas." }),
      maxReplicas: Type.Integer({ minimum: 0, default: 3, description: "The most replicas." }),
      mode: Type.Optional(
        Type.Union([Type.Literal("fast"), Type.Literal("safe")], {
          default: "safe",
          description: "How it runs.",
        }),
      ),
    },
    {
      description: "What the gadget should be.",
      ...validations({
        rule: "self.minReplicas <= self.maxReplicas",
        message: "must be at least minReplicas",
        fieldPath: ".maxReplicas",
      }),
    },
  ),
  status: Type.Object({
    observedGeneration: Type.Optional(Type.Integer({ description: "The generation last reconciled." })),
    reconciledSize: Type.Optional(Type.Integer({ description: "The size last reconciled." })),
  }),
  printerColumns: [{ name: "Size", type: "integer", jsonPath: ".spec.size" }],
});

export const gadgetType: ResourceType = {
  group: gadgetKind.group,
  version: gadgetKind.version,
  kind: gadgetKind.kind,
  plural: gadgetKind.plural,
  namespaced: true,
};
