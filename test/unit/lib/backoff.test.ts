import { describe, expect, it } from "vitest";
import { ItemBackoff } from "../../../src/kube/rate-limit.ts";
import { exponentialDelay, withJitter } from "../../../src/lib/backoff.ts";
import { defaultRetry, retryDelayMs as deliveryDelayMs } from "../../../src/pipelines/events/delivery.ts";
import { retryDelayMs as syncDelayMs } from "../../../src/pipelines/sync/state-machine.ts";

const seconds = (ms: number) => ms / 1000;

describe("exponentialDelay: the one backoff rule, with each caller's numbers", () => {
  it("doubles from the base, bounded by the cap; retry 0 waits the base", () => {
    expect([0, 1, 2, 3].map((retry) => exponentialDelay({ baseMs: 100, maxMs: 500 }, retry))).toEqual([
      100, 200, 400, 500,
    ]);
    // far past the cap 2^retry is Infinity: still the cap
    expect(exponentialDelay({ baseMs: 5, maxMs: 1_000_000 }, 2_000)).toBe(1_000_000);
  });

  it("run-completion event delivery: 1 s doubling to 5 min after each failed attempt (0 and 1 failures: 1 s)", () => {
    expect(
      [0, 1, 2, 3, 8, 9, 10, 12].map((attempts) => seconds(deliveryDelayMs(defaultRetry, attempts))),
    ).toEqual([1, 1, 2, 4, 128, 256, 300, 300]);
  });

  it("a pipeline resource's sync retry: 5 s doubling to 5 min by 1-based retry number", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((attempt) => seconds(syncDelayMs(attempt)))).toEqual([
      5, 10, 20, 40, 80, 160, 300, 300,
    ]);
  });

  it("the work queue's per-key backoff (client-go's defaults): 5 ms doubling to 1000 s per failure", () => {
    const backoff = new ItemBackoff();
    expect(Array.from({ length: 5 }, () => backoff.when("k"))).toEqual([5, 10, 20, 40, 80]);
    for (let i = 5; i < 40; i++) backoff.when("k");
    expect(backoff.when("k")).toBe(1_000_000);
  });

  it("the registry client's retries of a transient failure: 250 ms doubling, unbounded (4 attempts: 3 waits)", () => {
    expect(
      [1, 2, 3].map((attempt) => exponentialDelay({ baseMs: 250, maxMs: Infinity }, attempt - 1)),
    ).toEqual([250, 500, 1000]);
  });

  it("an informer's list/watch reconnect: 200 ms doubling to 10 s per consecutive failure", () => {
    const bounds = { baseMs: 200, maxMs: 10_000 };
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((failures) => exponentialDelay(bounds, failures - 1))).toEqual([
      200, 400, 800, 1600, 3200, 6400, 10_000, 10_000,
    ]);
  });
});

describe("withJitter (the informer's reconnects alone)", () => {
  it("spreads a delay evenly over ±spread of itself", () => {
    expect(withJitter(1000, 0.2, () => 0)).toBe(800);
    expect(withJitter(1000, 0.2, () => 0.5)).toBe(1000);
    expect(withJitter(1000, 0.2, () => 0.999)).toBeCloseTo(1199.6, 6);
  });
});
