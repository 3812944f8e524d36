/** The one Condition schema of every Slipway kind: Kubernetes' metav1.Condition, with its limits. */
import { Type } from "@sinclair/typebox";

export const Condition = Type.Object({
  type: Type.String({ maxLength: 316 }),
  status: Type.Union([Type.Literal("True"), Type.Literal("False"), Type.Literal("Unknown")]),
  reason: Type.String({ maxLength: 1024 }),
  message: Type.String({ maxLength: 32768 }),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
  lastTransitionTime: Type.String({ format: "date-time" }),
});

/** `status.conditions`: a list keyed by `type` (server-side apply merges it item by item). */
export const Conditions = Type.Array(Condition, {
  "x-kubernetes-list-type": "map",
  "x-kubernetes-list-map-keys": ["type"],
});
