import { canonical as canonicalJson, contentHash } from "../lib/canonical.ts";

/**
 * A pipeline resource's canonical form: object keys sorted, and lists of named items (name/value
 * pairs, steps, parameters) sorted by name, since their order carries no meaning. Other lists
 * (command, args) keep their order.
 */
export const canonical = (value: unknown): unknown => canonicalJson(value, { unorderedNamedLists: true });

/** A stable, order-independent version of a spec: 12 hex digits of the SHA-256 of its canonical JSON. */
export const versionOf = (value: unknown): string => contentHash(value, { unorderedNamedLists: true });
