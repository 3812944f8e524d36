import { exponentialDelay } from "../lib/backoff.ts";

/** Per-key exponential backoff: base·2^failures, capped (client-go's ItemExponentialFailureRateLimiter). */
export class ItemBackoff {
  readonly #failures = new Map<string, number>();
  readonly baseMs: number;
  readonly maxMs: number;

  constructor(baseMs = 5, maxMs = 1_000_000) {
    this.baseMs = baseMs;
    this.maxMs = maxMs;
  }

  /** The delay before the next retry of `key`, counting this failure. */
  when(key: string): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    return exponentialDelay(this, failures);
  }

  failures(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }
}

/** A token bucket shared by all keys: `qps` tokens a second, at most `burst` saved (client-go's BucketRateLimiter). */
export class TokenBucket {
  readonly qps: number;
  readonly burst: number;
  readonly #now: () => number;
  #tokens: number;
  #last: number;

  constructor(qps = 10, burst = 100, now: () => number = Date.now) {
    this.qps = qps;
    this.burst = burst;
    this.#now = now;
    this.#tokens = burst;
    this.#last = now();
  }

  /** Reserves one token; returns how long to wait (ms) until it is available. */
  reserve(): number {
    const now = this.#now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#last) / 1000) * this.qps);
    this.#last = now;
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : (-this.#tokens / this.qps) * 1000;
  }
}

/** A client-side limit on API requests: `qps` a second on average, `burst` at once (client-go's rest.Config QPS and Burst). */
export interface ClientRateLimit {
  qps: number;
  burst: number;
}

/**
 * controller-runtime's client defaults (its config loader sets them when the rest.Config has none),
 * the peer Slipway is measured against; client-go's own (5 qps, burst 10) suit a kubectl-like
 * client and would throttle an operator reconciling a few hundred objects.
 */
export const defaultClientRateLimit: ClientRateLimit = { qps: 20, burst: 30 };

/** The retry delay of a failed key: the larger of its own backoff and the global bucket's wait. */
export class RateLimiter {
  readonly backoff: ItemBackoff;
  readonly bucket: TokenBucket;

  constructor(backoff = new ItemBackoff(), bucket = new TokenBucket()) {
    this.backoff = backoff;
    this.bucket = bucket;
  }

  when(key: string): number {
    return Math.max(this.backoff.when(key), this.bucket.reserve());
  }

  retries(key: string): number {
    return this.backoff.failures(key);
  }

  forget(key: string): void {
    this.backoff.forget(key);
  }
}
