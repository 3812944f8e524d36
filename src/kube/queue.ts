import { RateLimiter } from "./rate-limit.ts";

/** What the queue reports to metrics (workqueue_* in controller-runtime's names). */
export interface QueueObserver {
  added?(): void;
  retried?(): void;
  depth?(depth: number): void;
  /** Time a key waited in the queue before a worker took it. */
  queued?(seconds: number): void;
  /** Time a worker held a key. */
  worked?(seconds: number): void;
}

export interface Timers {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * The longest any key waits before it is reconciled again: 1,000 s, the ceiling of client-go's
 * per-item backoff (and of RateLimiter here). A farther requeue (a TTL of weeks) comes back at the
 * clamp and is re-decided then, which costs one reconcile per 16 minutes; unclamped, a delay above
 * 2^31-1 ms would be run by Node's setTimeout after 1 ms, a busy loop.
 */
export const maxDelayMs = 1_000_000;

/** A requeue delay within [0, maxDelayMs]. */
export function clampDelay(ms: number): number {
  if (Number.isNaN(ms) || ms < 0) return 0;
  return Math.min(ms, maxDelayMs);
}

const realTimers: Timers = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => {
    const handle = setTimeout(callback, ms);
    handle.unref?.();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * A deduplicating, rate-limited work queue (client-go's workqueue semantics):
 * - a key is in the queue at most once, however often it is added;
 * - a key a worker holds is never handed to a second worker; if it is added meanwhile, it is
 *   queued again when the first worker calls done(), so it runs once more afterwards;
 * - addAfter keeps the earliest pending time per key and waits at most maxDelayMs (the caller
 *   re-decides then); addRateLimited backs off per key, bounded by
 *   a global token bucket; forget resets a key's backoff;
 * - after shutDown, adds are ignored and waiting get() calls resolve to undefined.
 */
export class WorkQueue {
  readonly #queue: string[] = [];
  #head = 0;
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #addedAt = new Map<string, number>();
  readonly #startedAt = new Map<string, number>();
  readonly #waiting = new Map<string, { at: number; handle: unknown }>();
  readonly #getters: ((key: string | undefined) => void)[] = [];
  readonly #limiter: RateLimiter;
  readonly #observer: QueueObserver;
  readonly #timers: Timers;
  #shuttingDown = false;

  constructor(options: { limiter?: RateLimiter; observer?: QueueObserver; timers?: Timers } = {}) {
    this.#limiter = options.limiter ?? new RateLimiter();
    this.#observer = options.observer ?? {};
    this.#timers = options.timers ?? realTimers;
  }

  get length(): number {
    return this.#queue.length - this.#head;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Keys a worker holds right now. */
  get inFlight(): ReadonlySet<string> {
    return this.#processing;
  }

  /** Keys waiting for a delay (addAfter / addRateLimited). */
  get delayed(): number {
    return this.#waiting.size;
  }

  add(key: string): void {
    if (this.#shuttingDown) return;
    this.#observer.added?.();
    if (this.#dirty.has(key)) return;
    this.#dirty.add(key);
    this.#addedAt.set(key, this.#timers.now());
    if (this.#processing.has(key)) return;
    this.#push(key);
  }

  addAfter(key: string, delayMs: number): void {
    if (this.#shuttingDown) return;
    const ms = clampDelay(delayMs);
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = this.#timers.now() + ms;
    const pending = this.#waiting.get(key);
    if (pending && pending.at <= at) return;
    if (pending) this.#timers.clearTimeout(pending.handle);
    const handle = this.#timers.setTimeout(() => {
      this.#waiting.delete(key);
      this.add(key);
    }, ms);
    this.#waiting.set(key, { at, handle });
  }

  addRateLimited(key: string): void {
    if (this.#shuttingDown) return;
    this.#observer.retried?.();
    this.addAfter(key, this.#limiter.when(key));
  }

  forget(key: string): void {
    this.#limiter.forget(key);
  }

  retries(key: string): number {
    return this.#limiter.retries(key);
  }

  /** The next key, without waiting; undefined if none is ready. The caller must call done(key). */
  tryGet(): string | undefined {
    if (this.length === 0) return undefined;
    const key = this.#queue[this.#head] as string;
    this.#head++;
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
    this.#observer.depth?.(this.length);
    this.#processing.add(key);
    this.#dirty.delete(key);
    const now = this.#timers.now();
    const addedAt = this.#addedAt.get(key);
    this.#addedAt.delete(key);
    if (addedAt !== undefined) this.#observer.queued?.((now - addedAt) / 1000);
    this.#startedAt.set(key, now);
    return key;
  }

  /** Waits for the next key; undefined once the queue is shut down. */
  get(): Promise<string | undefined> {
    if (this.#shuttingDown) return Promise.resolve(undefined);
    const key = this.tryGet();
    if (key !== undefined) return Promise.resolve(key);
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  /** A worker finished `key`; if it was added meanwhile, it is queued again. */
  done(key: string): void {
    if (!this.#processing.delete(key)) return;
    const startedAt = this.#startedAt.get(key);
    this.#startedAt.delete(key);
    if (startedAt !== undefined) this.#observer.worked?.((this.#timers.now() - startedAt) / 1000);
    if (this.#dirty.has(key) && !this.#shuttingDown) this.#push(key);
  }

  /** Stops intake: adds are ignored, delayed keys dropped, waiting workers released. Held keys may still call done(). */
  shutDown(): void {
    this.#shuttingDown = true;
    for (const { handle } of this.#waiting.values()) this.#timers.clearTimeout(handle);
    this.#waiting.clear();
    for (const resolve of this.#getters.splice(0)) resolve(undefined);
  }

  #push(key: string): void {
    const getter = this.#getters.shift();
    if (getter) {
      this.#queue.push(key);
      getter(this.tryGet());
      return;
    }
    this.#queue.push(key);
    this.#observer.depth?.(this.length);
  }
}
