/**
 * The install namespace: `slipway install` creates it only when it is missing and then labels it, so
 * that `uninstall` deletes only a namespace Slipway created (never `default` or a team's own).
 */
import type { KubeObject } from "../../kube/types.ts";

/** Set by `slipway install` on a namespace it created; `uninstall` deletes only namespaces carrying it. */
export const createdByInstallLabel = "platform.slipway.dev/created-by-install";

export function namespaceObject(name: string, labels: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, ...(Object.keys(labels).length ? { labels } : {}) },
  };
}

/** The Namespace `install` creates when `name` does not exist yet. */
export function createdNamespace(name: string): KubeObject {
  return namespaceObject(name, { [createdByInstallLabel]: "true", "app.kubernetes.io/part-of": "slipway" });
}

/** Whether `uninstall` may delete the namespace: only one `install` created. */
export function createdByInstall(namespace: KubeObject | undefined): boolean {
  return namespace?.metadata?.labels?.[createdByInstallLabel] === "true";
}

/** A bundle's objects without its Namespace objects: install handles the namespace itself. */
export function withoutNamespaces(objects: KubeObject[]): KubeObject[] {
  return objects.filter((object) => object.kind !== "Namespace");
}
