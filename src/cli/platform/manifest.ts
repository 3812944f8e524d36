/** A release bundle from a file or URL (`--manifest`), its namespaced objects placed in the install namespace. */
import { readFile } from "node:fs/promises";
import { parseAllDocuments } from "yaml";
import { type BundleObject, inNamespace } from "../../bundle/bundle.ts";
import type { KubeObject } from "../../kube/types.ts";
import { UserError } from "../run.ts";

/** The objects of a manifest, namespaced ones moved into `namespace` (the bundle's namespace is set at install time). */
export function placeObjects(text: string, namespace: string, source: string): KubeObject[] {
  const objects: BundleObject[] = [];
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length) throw new UserError(`--manifest ${source}: ${document.errors[0]?.message}`);
    const object = document.toJS() as BundleObject | null;
    if (!object) continue;
    if (!object.kind || !object.apiVersion || !object.metadata?.name) {
      throw new UserError(`--manifest ${source}: every object needs apiVersion, kind and metadata.name`);
    }
    objects.push(object);
  }
  return inNamespace(objects, namespace);
}

/**
 * Where a manifest comes from (pure): a file, or an https:// URL (TLS: what is applied is what the
 * server sent). Any other URL (http://, ftp://, ...) is refused.
 */
export function manifestSource(source: string): "file" | "https" {
  if (/^https:\/\//i.test(source)) return "https";
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(source)?.[1];
  if (scheme) {
    throw new UserError(
      `--manifest must be a file or an https:// URL, not ${scheme}:// (an unencrypted download could be altered on the way)`,
    );
  }
  return "file";
}

export async function readManifest(source: string, namespace: string): Promise<KubeObject[]> {
  const from = manifestSource(source);
  let text: string;
  try {
    if (from === "https") {
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
