/**
 * What a controller reads, derived in one place from its ControllerSpec: the manager caches these
 * kinds, the controller waits for their caches before its workers start, and the RBAC generator
 * (src/operator/rbac.ts) grants get/list/watch on them.
 */
import { typeId } from "./keys.ts";
import type { ControllerSpec, ResourceType } from "./types.ts";

/** The identity of a type's cache: a field- or label-selected type, or one cached without its spec, has a cache of its own. */
export function cacheId(type: ResourceType): string {
  const selectors = [
    type.fieldSelector ? `fieldSelector=${type.fieldSelector}` : "",
    type.labelSelector ? `labelSelector=${type.labelSelector}` : "",
    type.cacheWithoutSpec ? "withoutSpec" : "",
  ].filter(Boolean);
  return selectors.length ? `${typeId(type)}?${selectors.join("&")}` : typeId(type);
}

/** Every kind `spec` reads from the cache (for, owns, watches, indexes, reads), each cache once, in that order. */
export function readKinds(spec: ControllerSpec): ResourceType[] {
  const all = [
    spec.for,
    ...(spec.owns ?? []),
    ...(spec.watches ?? []).map((watch) => watch.type),
    ...(spec.indexes ?? []).map((index) => index.type),
    ...(spec.reads ?? []),
  ];
  const seen = new Set<string>();
  return all.filter((type) => {
    const id = cacheId(type);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/**
 * The cache ids of the kinds `specs` read only as optional watches (no spec needs them otherwise):
 * their controllers do not wait for an API server that does not serve them.
 */
export function optionalCacheIds(specs: readonly ControllerSpec[]): Set<string> {
  const watches = specs.flatMap((spec) => spec.watches ?? []);
  const required = new Set(
    specs.flatMap((spec) =>
      [
        spec.for,
        ...(spec.owns ?? []),
        ...(spec.watches ?? []).filter((watch) => !watch.optional).map((watch) => watch.type),
        ...(spec.indexes ?? []).map((index) => index.type),
        ...(spec.reads ?? []),
      ].map(cacheId),
    ),
  );
  return new Set(
    watches
      .filter((watch) => watch.optional && !required.has(cacheId(watch.type)))
      .map((w) => cacheId(w.type)),
  );
}
