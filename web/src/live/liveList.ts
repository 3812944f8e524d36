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
