/**
 * Sets `key` to `value` as the map's newest entry and, past `limit` entries, forgets the oldest: a
 * per-object memory that cannot grow without bound as objects come and go.
 */
export function setNewest<K, V>(map: Map<K, V>, key: K, value: V, limit: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > limit) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}
