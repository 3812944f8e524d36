/** A release bundle from a file or URL (`--manifest`), its namespaced objects placed in the install namespace. */
import { readFile } from "node:fs/promises";
import { parseAllDocuments } from "yaml";
import type { KubeObject } from "../../kube/types.ts";
import { UserError } from "../run.ts";

const clusterScoped = new Set([
  "CustomResourceDefinition",
  "ClusterRole",
  "ClusterRoleBinding",
  "Namespace",
  "PriorityClass",
  "StorageClass",
  "IngressClass",
  "ValidatingWebhookConfiguration",
  "MutatingWebhookConfiguration",
]);

/** The objects of a manifest, namespaced ones moved into `namespace` (the bundle's namespace is set at install time). */
export function placeObjects(text: string, namespace: string, source: string): KubeObject[] {
  const objects: KubeObject[] = [];
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length) throw new UserError(`--manifest ${source}: ${document.errors[0]?.message}`);
    const object = document.toJS() as KubeObject | null;
    if (!object) continue;
    if (!object.kind || !object.apiVersion || !object.metadata?.name) {
      throw new UserError(`--manifest ${source}: every object needs apiVersion, kind and metadata.name`);
    }
    if (!clusterScoped.has(object.kind)) object.metadata = { ...object.metadata, namespace };
    objects.push(object);
  }
  return objects;
}

export async function readManifest(source: string, namespace: string): Promise<KubeObject[]> {
  let text: string;
  try {
    if (/^https?:\/\//.test(source)) {
      const response = await fetch(source);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      text = await response.text();
    } else {
      text = await readFile(source, "utf8");
    }
  } catch (error) {
    throw new UserError(`--manifest ${source}: cannot read it: ${(error as Error).message}`);
  }
  return placeObjects(text, namespace, source);
}
