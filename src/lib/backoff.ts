/** Exponential backoff: the one rule for retry delays in Slipway (each caller counts its retries its own way). */

export interface Backoff {
  /** The first delay. */
  baseMs: number;
  /** The longest delay (Infinity: unbounded). */
  maxMs: number;
}

/** The delay before retry `retry` (0: the first): `baseMs` doubled `retry` times, at most `maxMs`. */
export function exponentialDelay(backoff: Backoff, retry: number): number {
  // 2^retry overflows to Infinity long after it passes any cap; Math.min handles both.
  return Math.min(backoff.baseMs * 2 ** retry, backoff.maxMs);
}

/** `ms` spread evenly over ±`spread` of itself (0.2: 80 % to 120 %), so many clients' retries do not align. */
export function withJitter(ms: number, spread: number, random: () => number = Math.random): number {
  return ms * (1 - spread + random() * 2 * spread);
}
