import { describe, expect, it } from "vitest";
import { TtlCache } from "../../../src/lib/bounded-map.ts";
import { defaultLimits, parseLimits } from "../../../src/server/limits/config.ts";
import { FailureLimiter, refilled, secondsUntilNext } from "../../../src/server/limits/failure-limiter.ts";
import { StreamSlots, streamRefusal } from "../../../src/server/limits/stream-slots.ts";

describe("TtlCache: bounded by least recent use, entries expire", () => {
  it("forgets one entry past the limit (the least recently used), never the whole cache", () => {
    const cache = new TtlCache<number>({ ttlMs: 1000, limit: 3 });
    cache.set("a", 1, 0);
    cache.set("b", 2, 0);
    cache.set("c", 3, 0);
    expect(cache.get("a", 1)).toBe(1); // a is now the most recently used
    cache.set("d", 4, 2);
    expect(cache.size).toBe(3);
    expect(cache.get("b", 3)).toBeUndefined();
    expect([cache.get("a", 3), cache.get("c", 3), cache.get("d", 3)]).toEqual([1, 3, 4]);
  });

  it("answers nothing once an entry is ttlMs old", () => {
    const cache = new TtlCache<string>({ ttlMs: 1000, limit: 10 });
    cache.set("token", "alice", 5000);
    expect(cache.get("token", 5999)).toBe("alice");
    expect(cache.get("token", 6000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});

describe("FailureLimiter: a token bucket of authentication failures per client", () => {
  it("lets perMinute failures through at once, then asks the client to wait until one is back", () => {
    const limiter = new FailureLimiter(30);
    for (let i = 0; i < 30; i++) expect(limiter.take("10.0.0.1", 0)).toBeUndefined();
    expect(limiter.take("10.0.0.1", 0)).toBe(2); // one failure back every 2 s
    expect(limiter.take("10.0.0.2", 0)).toBeUndefined(); // another client has its own allowance
    expect(limiter.take("10.0.0.1", 1999)).toBe(1);
    expect(limiter.take("10.0.0.1", 2000)).toBeUndefined();
  });

  it("gives the unit back when the token was accepted, up to the allowance", () => {
    const limiter = new FailureLimiter(2);
    for (let i = 0; i < 5; i++) {
      expect(limiter.take("client", 0)).toBeUndefined();
      limiter.refund("client", 0);
    }
    expect(refilled({ tokens: 2, at: 0 }, 2, 60_000).tokens).toBe(2);
    expect(secondsUntilNext({ tokens: 0.99, at: 0 }, 60)).toBe(1);
  });
});

describe("stream caps", () => {
  it("refuses beyond the total first, then beyond the user's own cap", () => {
    expect(streamRefusal({ user: 1, total: 4 }, { perUser: 2, total: 5 })).toBeUndefined();
    expect(streamRefusal({ user: 2, total: 4 }, { perUser: 2, total: 5 })).toBe("user");
    expect(streamRefusal({ user: 0, total: 5 }, { perUser: 2, total: 5 })).toBe("total");
  });

  it("StreamSlots: 429 with Retry-After beyond a cap; a release (once, however often called) frees the slot", () => {
    const slots = new StreamSlots({ perUser: 2, total: 3 });
    const first = slots.take("alice");
    slots.take("alice");
    let refused: unknown;
    try {
      slots.take("alice");
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({ statusCode: 429, retryAfterSeconds: 5 });
    expect((refused as Error).message).toMatch(/alice has 2 streams open/);
    slots.take("bob");
    expect(() => slots.take("carol")).toThrow(/the server has 3 streams open/);
    first();
    first();
    expect(slots.total).toBe(2);
    slots.take("alice");
    expect(slots.total).toBe(3);
  });
});

describe("parseLimits", () => {
  it("keeps the defaults for absent values and names the flag and variable of a bad one", () => {
    expect(parseLimits({})).toEqual(defaultLimits);
    expect(parseLimits({ streamsPerUser: "3" }).streamsPerUser).toBe(3);
    expect(() => parseLimits({ streamsTotal: "0" })).toThrow(
      '--streams-total (or SLIPWAY_SERVER_STREAMS_TOTAL) must be a whole number of at least 1, not "0"',
    );
    expect(() => parseLimits({ tokenCacheSeconds: "1.5" })).toThrow(/--token-cache-seconds/);
  });
});
