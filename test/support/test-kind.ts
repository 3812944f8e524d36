import { Type } from "@sinclair/typebox";
import { defineKind, type Resource } from "../../src/apis/kind.ts";
import type { ResourceType } from "../../src/kube/types.ts";

/** A test kind for the controller runtime's tests: a Widget's status echoes its spec. */
export const Widget = defineKind({
  group: "test.slipway.dev",
  version: "v1",
  kind: "Widget",
  plural: "widgets",
  singular: "widget",
  shortNames: ["wdg"],
  scope: "Namespaced",
  description: "A test object reconciled by the runtime's tests.",
  spec: Type.Object(
    {
      size: Type.Integer({ minimum: 0, description: "Any number; the test reconciler copies it to status." }),
      fail: Type.Optional(Type.Boolean({ description: "Makes the test reconciler throw." })),
    },
    { description: "What the widget should be." },
  ),
  status: Type.Object(
    {
      observedGeneration: Type.Optional(Type.Integer()),
      size: Type.Optional(Type.Integer()),
      conditions: Type.Optional(
        Type.Array(
          Type.Object({
            type: Type.String(),
            status: Type.String(),
            reason: Type.String(),
            message: Type.String(),
            observedGeneration: Type.Optional(Type.Integer()),
            lastTransitionTime: Type.String({ format: "date-time" }),
          }),
        ),
      ),
    },
    { description: "What the reconciler last wrote." },
  ),
  printerColumns: [{ name: "Size", type: "integer", jsonPath: ".status.size" }],
});

export type WidgetObject = Resource<typeof Widget>;

export const widgetType: ResourceType = {
  group: Widget.group,
  version: Widget.version,
  kind: Widget.kind,
  plural: Widget.plural,
  namespaced: true,
};

export const configMapType: ResourceType = {
  group: "",
  version: "v1",
  kind: "ConfigMap",
  plural: "configmaps",
  namespaced: true,
};

export function widget(namespace: string, name: string, size: number): WidgetObject {
  return {
    apiVersion: Widget.apiVersion,
    kind: Widget.kind,
    metadata: { name, namespace },
    spec: { size },
  };
}
