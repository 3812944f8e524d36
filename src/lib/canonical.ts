/** Canonical JSON, the hashes taken of it and equality under the same rule (key order ignored, undefined fields dropped): one rule for every "same content" in Slipway. */
import { createHash } from "node:crypto";

export interface CanonicalOptions {
  /**
   * Sort lists whose items all have a string `name` (env, parameters, steps) by name, for content in
   * which their order carries no meaning. Off for objects Kubernetes reads in order (a container's
   * env may refer to the variables before it).
   */
  unorderedNamedLists?: boolean;
}

const byKey = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);

function isNamedList(value: unknown[]): value is { name: string }[] {
  return (
    value.length > 0 &&
    value.every(
      (item) =>
        typeof item === "object" && item !== null && typeof (item as { name?: unknown }).name === "string",
    )
  );
}

/** `value` with object keys sorted and undefined fields dropped (as JSON drops them). */
export function canonical(value: unknown, options: CanonicalOptions = {}): unknown {
  if (Array.isArray(value)) {
    const items = value.map((item) => canonical(item, options));
    if (!options.unorderedNamedLists || !isNamedList(items)) return items;
    return [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(byKey);
    return Object.fromEntries(entries.map(([k, v]) => [k, canonical(v, options)]));
  }
  return value;
}

/** The first `length` hex digits of the SHA-256 of `text`. */
export function shortHash(text: string, length = 8): string {
  return createHash("sha256").update(text).digest("hex").slice(0, length);
}

/** A hash of `value`'s canonical JSON: equal content, equal hash, whatever the key order. */
export function contentHash(value: unknown, options: CanonicalOptions & { length?: number } = {}): string {
  return shortHash(JSON.stringify(canonical(value, options)), options.length ?? 12);
}

/**
 * `readable` cut to leave room for `-<hash of seed>` within `max` characters (Kubernetes names and
 * label values: 63). The hash keeps names that shorten to the same readable part apart.
 */
export function withHashSuffix(readable: string, seed: string, max = 63, hashLength = 10): string {
  const kept = readable.slice(0, max - hashLength - 1).replace(/[-.]+$/, "");
  return `${kept}-${shortHash(seed, hashLength)}`;
}

/** Deep equality of JSON values, ignoring object key order (specs read back from the API server reorder keys). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]))
    );
  }
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  const left = Object.entries(a).filter(([, v]) => v !== undefined);
  const right = new Map(Object.entries(b).filter(([, v]) => v !== undefined));
  return left.length === right.size && left.every(([k, v]) => right.has(k) && sameJson(v, right.get(k)));
}
