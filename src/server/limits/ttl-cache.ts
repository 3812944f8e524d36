import { setNewest } from "../../lib/bounded-map.ts";

/**
 * Remembers values for `ttlMs` each, at most `limit` of them: past the limit the least recently
 * used entry goes (one entry, never the whole cache). `now` is passed in, so the rule is testable.
 */
export class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; until: number }>();
  readonly #ttlMs: number;
  readonly #limit: number;

  constructor(options: { ttlMs: number; limit: number }) {
    this.#ttlMs = options.ttlMs;
    this.#limit = options.limit;
  }

  /** The value of `key` while it is fresh (and it becomes the most recently used); undefined after. */
  get(key: string, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.until <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    setNewest(this.#entries, key, entry, this.#limit);
    return entry.value;
  }

  set(key: string, value: V, now: number): void {
    setNewest(this.#entries, key, { value, until: now + this.#ttlMs }, this.#limit);
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
