import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { clampDelay, maxDelayMs, type Timers, WorkQueue } from "../../../src/kube/queue.ts";
import { ItemBackoff, RateLimiter, TokenBucket } from "../../../src/kube/rate-limit.ts";

/** Timers driven by the test: advance(ms) fires what is due, in order. */
class FakeTimers implements Timers {
  time = 0;
  #next = 0;
  readonly #pending = new Map<number, { at: number; callback: () => void }>();
  now = () => this.time;
  setTimeout = (callback: () => void, ms: number) => {
    const id = this.#next++;
    this.#pending.set(id, { at: this.time + ms, callback });
    return id;
  };
  clearTimeout = (handle: unknown) => {
    this.#pending.delete(handle as number);
  };
  advance(ms: number): void {
    const until = this.time + ms;
    for (;;) {
      const due = [...this.#pending.entries()]
        .filter(([, t]) => t.at <= until)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.#pending.delete(due[0]);
      this.time = due[1].at;
      due[1].callback();
    }
    this.time = until;
  }
}

function drain(queue: WorkQueue): string[] {
  const seen: string[] = [];
  for (let key = queue.tryGet(); key !== undefined; key = queue.tryGet()) {
    seen.push(key);
    queue.done(key);
  }
  return seen;
}

describe("WorkQueue", () => {
  test("a key added many times is queued once", () => {
    const queue = new WorkQueue();
    queue.add("a");
    queue.add("b");
    queue.add("a");
    expect(queue.length).toBe(2);
    expect(drain(queue)).toEqual(["a", "b"]);
  });

  test("a key added while in flight is not handed out again until done, then runs once more", () => {
    const queue = new WorkQueue();
    queue.add("a");
    expect(queue.tryGet()).toBe("a");
    queue.add("a");
    queue.add("a");
    expect(queue.tryGet()).toBeUndefined();
    queue.done("a");
    expect(queue.tryGet()).toBe("a");
    queue.done("a");
    expect(queue.tryGet()).toBeUndefined();
  });

  test("get() waits for a key and shutDown releases waiting workers; adds after shutdown are ignored", async () => {
    const queue = new WorkQueue();
    const waiting = queue.get();
    queue.add("x");
    expect(await waiting).toBe("x");
    const released = queue.get();
    queue.shutDown();
    expect(await released).toBeUndefined();
    queue.add("y");
    expect(queue.length).toBe(0);
    expect(await queue.get()).toBeUndefined();
  });

  test("waiting workers: a held key is not handed to a second worker until done", async () => {
    const queue = new WorkQueue();
    const first = queue.get();
    const second = queue.get();
    queue.add("a");
    expect(await first).toBe("a");
    queue.add("a");
    queue.add("b");
    expect(await second).toBe("b");
    const third = queue.get();
    let handed: string | undefined;
    void third.then((key) => {
      handed = key;
    });
    await Promise.resolve();
    expect(handed).toBeUndefined();
    queue.done("a");
    expect(await third).toBe("a");
  });

  test("addAfter keeps the earliest time per key", () => {
    const timers = new FakeTimers();
    const queue = new WorkQueue({ timers });
    queue.addAfter("a", 100);
    queue.addAfter("a", 50);
    queue.addAfter("a", 200);
    timers.advance(49);
    expect(queue.length).toBe(0);
    timers.advance(1);
    expect(queue.length).toBe(1);
    timers.advance(500);
    expect(drain(queue)).toEqual(["a"]);
  });

  test("every delay is clamped to 1,000 s (client-go's ceiling): a far-off key comes back at the clamp, not at once", () => {
    expect(maxDelayMs).toBe(1_000_000);
    expect(clampDelay(2_147_484_000)).toBe(1_000_000);
    expect(clampDelay(1_000_001)).toBe(1_000_000);
    expect(clampDelay(Number.POSITIVE_INFINITY)).toBe(1_000_000);
    expect(clampDelay(Number.NaN)).toBe(0);
    expect(clampDelay(-5)).toBe(0);
    expect(clampDelay(1000)).toBe(1000);
    const timers = new FakeTimers();
    const asked: number[] = [];
    const setTimeout = timers.setTimeout;
    timers.setTimeout = (callback, ms) => {
      asked.push(ms);
      return setTimeout(callback, ms);
    };
    const queue = new WorkQueue({ timers });
    // A Run's ttlSecondsAfterCompletion of 30 days.
    queue.addAfter("a", 30 * 86_400_000);
    expect(asked).toEqual([maxDelayMs]);
    timers.advance(maxDelayMs - 1);
    expect(queue.length).toBe(0);
    timers.advance(1);
    expect(drain(queue)).toEqual(["a"]);
  });

  test("with Node's own timers, a delay of 30 days does not fire within milliseconds", async () => {
    const queue = new WorkQueue();
    queue.addAfter("a", 30 * 86_400_000);
    const soon = new WorkQueue();
    soon.addAfter("b", 5);
    await soon.get();
    await new Promise((resolve) => globalThis.setTimeout(resolve, 20));
    expect(queue.length).toBe(0);
    expect(queue.delayed).toBe(1);
    queue.shutDown();
    soon.shutDown();
  });

  test("addRateLimited backs off per key (5 ms doubling) and forget resets it", () => {
    const timers = new FakeTimers();
    const queue = new WorkQueue({
      timers,
      limiter: new RateLimiter(new ItemBackoff(5, 1000), new TokenBucket(10, 100, timers.now)),
    });
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      const start = timers.time;
      queue.addRateLimited("a");
      while (queue.length === 0) timers.advance(1);
      delays.push(timers.time - start);
      drain(queue);
    }
    expect(delays).toEqual([5, 10, 20, 40]);
    expect(queue.retries("a")).toBe(4);
    queue.forget("a");
    expect(queue.retries("a")).toBe(0);
  });

  test("property: never two workers on one key, no duplicates, every add is followed by a run", () => {
    const keys = ["a", "b", "c", "d"];
    const operation = fc.oneof(
      fc.record({ op: fc.constant("add" as const), key: fc.constantFrom(...keys) }),
      fc.record({ op: fc.constant("get" as const) }),
      fc.record({ op: fc.constant("done" as const), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 200 }), (operations) => {
        const queue = new WorkQueue();
        const inFlight: string[] = [];
        // for each key: was it added since its last run started? (then it must run again)
        const owed = new Set<string>();
        const adds = new Map<string, number>();
        const runs = new Map<string, number>();
        const start = (key: string) => {
          expect(inFlight).not.toContain(key);
          inFlight.push(key);
          owed.delete(key);
          runs.set(key, (runs.get(key) ?? 0) + 1);
        };
        for (const operation of operations) {
          if (operation.op === "add") {
            queue.add(operation.key);
            owed.add(operation.key);
            adds.set(operation.key, (adds.get(operation.key) ?? 0) + 1);
          } else if (operation.op === "get") {
            const key = queue.tryGet();
            if (key !== undefined) start(key);
          } else if (inFlight.length > 0) {
            const [key] = inFlight.splice(operation.pick % inFlight.length, 1);
            queue.done(key as string);
          }
          expect(queue.length).toBeLessThanOrEqual(keys.length);
        }
        for (const key of inFlight.splice(0)) queue.done(key);
        for (let key = queue.tryGet(); key !== undefined; key = queue.tryGet()) {
          start(key);
          inFlight.splice(inFlight.indexOf(key), 1);
          queue.done(key);
        }
        expect([...owed]).toEqual([]);
        for (const [key, count] of runs) expect(count).toBeLessThanOrEqual(adds.get(key) ?? 0);
      }),
    );
  });
});

describe("rate limiting", () => {
  test("per-key backoff doubles from 5 ms and is capped", () => {
    const backoff = new ItemBackoff(5, 1_000_000);
    const delays = Array.from({ length: 30 }, () => backoff.when("k"));
    expect(delays.slice(0, 4)).toEqual([5, 10, 20, 40]);
    expect(delays.at(-1)).toBe(1_000_000);
    expect(backoff.when("other")).toBe(5);
  });

  test("the token bucket allows a burst, then spaces reservations at 1/qps", () => {
    let now = 0;
    const bucket = new TokenBucket(10, 100, () => now);
    const waits = Array.from({ length: 102 }, () => bucket.reserve());
    expect(waits.slice(0, 100).every((w) => w === 0)).toBe(true);
    expect(waits[100]).toBeCloseTo(100);
    expect(waits[101]).toBeCloseTo(200);
    now += 10_000;
    expect(bucket.reserve()).toBe(0);
  });

  test("a retry waits for the larger of its backoff and the bucket", () => {
    const now = 0;
    const limiter = new RateLimiter(new ItemBackoff(5, 1000), new TokenBucket(10, 1, () => now));
    expect(limiter.when("a")).toBe(5);
    expect(limiter.when("b")).toBeCloseTo(100);
    expect(limiter.when("a")).toBeCloseTo(200);
  });
});
