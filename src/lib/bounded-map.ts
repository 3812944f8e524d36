/**
 * Memory bounded by entry count, forgetting the least recently set first: one rule (`setNewest`) for
 * every per-object, per-client or per-key memory in Slipway, so none grows without bound as keys come
 * and go. `BoundedMap` wraps it as a Map of its own; `TtlCache` adds expiry and least-recent-use.
 */

/**
 * Sets `key` to `value` as the map's newest entry and, past `limit` entries, forgets the oldest: a
 * per-object memory that cannot grow without bound as objects come and go. Answers the value
 * forgotten, if any (for a caller that must release it, e.g. close its connections).
 */
export function setNewest<K, V>(map: Map<K, V>, key: K, value: V, limit: number): V | undefined {
  map.delete(key);
  map.set(key, value);
  if (map.size <= limit) return undefined;
  const oldest = map.entries().next().value;
  if (!oldest) return undefined;
  map.delete(oldest[0]);
  return oldest[1];
}

/** A Map that keeps at most `capacity` entries (at least one), forgetting the least recently set first. */
export class BoundedMap<K, V> {
  readonly #capacity: number;
  readonly #entries = new Map<K, V>();

  constructor(capacity: number) {
    this.#capacity = Math.max(1, capacity);
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    return this.#entries.get(key);
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  set(key: K, value: V): this {
    setNewest(this.#entries, key, value, this.#capacity);
    return this;
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  values(): IterableIterator<V> {
    return this.#entries.values();
  }
}

/**
 * Remembers values for `ttlMs` each, at most `limit` of them: past the limit the least recently
 * used entry goes (one entry, never the whole cache). `now` is passed in, so the rule is testable.
 */
export class TtlCache<V> {
  readonly #entries: BoundedMap<string, { value: V; until: number }>;
  readonly #ttlMs: number;

  constructor(options: { ttlMs: number; limit: number }) {
    this.#ttlMs = options.ttlMs;
    this.#entries = new BoundedMap(options.limit);
  }

  /** The value of `key` while it is fresh (and it becomes the most recently used); undefined after. */
  get(key: string, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.until <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, now: number): void {
    this.#entries.set(key, { value, until: now + this.#ttlMs });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
