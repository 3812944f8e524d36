import { createHash } from "node:crypto";

function isNamedList(value: unknown[]): value is { name: string }[] {
  return (
    value.length > 0 &&
    value.every(
      (item) =>
        typeof item === "object" && item !== null && typeof (item as { name?: unknown }).name === "string",
    )
  );
}

/**
 * A canonical form of a JSON value: object keys sorted, and lists of named items (name/value pairs,
 * steps, parameters) sorted by name, since their order carries no meaning. Other lists (command,
 * args) keep their order. Undefined fields are dropped, like JSON does.
 */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(canonical);
    if (!isNamedList(items)) return items;
    return [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([k, v]) => [k, canonical(v)]));
  }
  return value;
}

/** A stable, order-independent version of a spec: 12 hex digits of the SHA-256 of its canonical JSON. */
export function versionOf(value: unknown): string {
  return createHash("sha256")
    .update(JSON.stringify(canonical(value)))
    .digest("hex")
    .slice(0, 12);
}
