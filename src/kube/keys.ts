import type { KubeObject, ObjectKey, ResourceType } from "./types.ts";

/** "namespace/name" for namespaced objects, "name" for cluster-scoped ones (as client-go's MetaNamespaceKeyFunc). */
export function keyString(key: ObjectKey): string {
  return key.namespace ? `${key.namespace}/${key.name}` : key.name;
}

export function parseKey(key: string): ObjectKey {
  const slash = key.indexOf("/");
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export function keyOf(object: KubeObject): ObjectKey {
  const name = object.metadata?.name;
  if (!name) throw new Error("object has no metadata.name");
  const namespace = object.metadata?.namespace;
  return namespace ? { namespace, name } : { name };
}

export function objectKeyString(object: KubeObject): string {
  return keyString(keyOf(object));
}

export function apiVersionOf(type: ResourceType): string {
  return type.group ? `${type.group}/${type.version}` : type.version;
}

/** A stable identity of a resource type, e.g. "apps/v1/deployments" or "v1/pods". */
export function typeId(type: ResourceType): string {
  return `${apiVersionOf(type)}/${type.plural}`;
}

export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/** The REST path of a collection or an object: /api/v1/namespaces/ns/pods/name/status. */
export function resourcePath(
  type: ResourceType,
  target: { namespace?: string; name?: string; subresource?: string } = {},
): string {
  const base = type.group ? `/apis/${type.group}/${type.version}` : `/api/${type.version}`;
  let path = base;
  if (type.namespaced && target.namespace) path += `/namespaces/${encodeURIComponent(target.namespace)}`;
  path += `/${type.plural}`;
  if (target.name) path += `/${encodeURIComponent(target.name)}`;
  if (target.subresource) {
    if (!target.name) throw new Error("a subresource needs an object name");
    path += `/${target.subresource}`;
  }
  return path;
}
