/**
 * The runtime benchmark's reconciler and the names of its Widget kind, shared by bench/runtime.ts and
 * the idle child (bench/runtime/idle-child.ts), which must import no more than an operator does.
 */
import type { ControllerSpec, KubeObject, ResourceType } from "../../src/kube/types.ts";

/** Its own group, so it never meets the tests' Widget CRD. */
export const widgetNames = { group: "bench.slipway.dev", version: "v1", kind: "Widget", plural: "widgets" };
export const widgetType: ResourceType = { ...widgetNames, namespaced: true };
export const concurrency = 8;
export const namespace = "default";

interface WidgetObject extends KubeObject {
  spec: { size: number };
  status?: { size?: number };
}

/** The reconciler under test: status.size := spec.size, written only when it differs (never when !writes). */
export function echoController(onWrite: () => void, writes: boolean): ControllerSpec {
  return {
    name: "widget-echo",
    for: widgetType,
    permissions: [],
    concurrency,
    async reconcile(key, { cache, client }) {
      const object = cache.get<WidgetObject>(widgetType, key);
      if (!writes || !object || object.status?.size === object.spec.size) return undefined;
      await client.applyStatus({
        apiVersion: `${widgetNames.group}/${widgetNames.version}`,
        kind: widgetNames.kind,
        metadata: { name: key.name, namespace },
        status: { size: object.spec.size },
      });
      onWrite();
      return undefined;
    },
  };
}
