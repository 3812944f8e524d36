/** The objects of an event stream (pure): a snapshot replaces them, an upsert adds or replaces one, a delete removes one. */

export interface Named {
  name: string;
}

export type ListEvent<T extends Named> =
  | { event: "snapshot"; data: { items: T[] } }
  | { event: "upsert"; data: T }
  | { event: "delete"; data: { name: string } };

export function applyListEvent<T extends Named>(items: T[], event: ListEvent<T>): T[] {
  if (event.event === "snapshot") return [...event.data.items].sort(byName);
  if (event.event === "delete") return items.filter((item) => item.name !== event.data.name);
  const rest = items.filter((item) => item.name !== event.data.name);
  return [...rest, event.data].sort(byName);
}

const byName = (a: Named, b: Named) => a.name.localeCompare(b.name);

/** Milliseconds to wait before reconnect attempt `attempt` (0, 1, …): doubling from 500 ms, at most 10 s. */
/** Resolves after `ms`, or never once `signal` aborts (the caller's loop checks it). */
export const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
  });

export const reconnectDelayMs = (attempt: number) => Math.min(500 * 2 ** attempt, 10_000);

/** The API server's list order (etcd's: by name, byte-wise), which pages follow. */
export const byApiOrder = (a: Named, b: Named) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export type PageChange<T extends Named> =
  | { event: "upsert"; data: T }
  | { event: "delete"; data: { name: string } };

/**
 * The loaded pages after a change (pure): a delete removes the object; an upsert replaces it, or adds
 * it when it belongs to what is loaded (every page is, or it sorts before the last object loaded);
 * one that falls in a page not loaded yet waits for that page.
 */
export function applyPageChange<T extends Named>(items: T[], change: PageChange<T>, complete: boolean): T[] {
  if (change.event === "delete") return items.filter((item) => item.name !== change.data.name);
  const index = items.findIndex((item) => item.name === change.data.name);
  if (index >= 0) return items.map((item, i) => (i === index ? change.data : item));
  const last = items.at(-1);
  if (!complete && last && byApiOrder(change.data, last) > 0) return items;
  return [...items, change.data].sort(byApiOrder);
}

/** The loaded pages and a next page (pure): objects already shown (told live) are not repeated. */
export function appendPage<T extends Named>(items: T[], page: T[]): T[] {
  const shown = new Set(items.map((item) => item.name));
  return [...items, ...page.filter((item) => !shown.has(item.name))].sort(byApiOrder);
}
