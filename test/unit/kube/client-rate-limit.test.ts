import { describe, expect, test } from "vitest";
import { defaultClientRateLimit, TokenBucket } from "../../../src/kube/rate-limit.ts";
import { parseClientRateLimit } from "../../../src/operator/client-rate-limit.ts";

describe("the operator's client-side rate limit", () => {
  test("defaults are controller-runtime's: a burst of 30 at once, then one request every 50 ms", () => {
    expect(defaultClientRateLimit).toEqual({ qps: 20, burst: 30 });
    let now = 0;
    const bucket = new TokenBucket(defaultClientRateLimit.qps, defaultClientRateLimit.burst, () => now);
    const waits = Array.from({ length: 32 }, () => bucket.reserve());
    expect(waits.slice(0, 30)).toEqual(Array(30).fill(0));
    expect(waits[30]).toBeCloseTo(50);
    expect(waits[31]).toBeCloseTo(100);
    // an idle minute saves no more than the burst
    now += 60_000;
    const after = Array.from({ length: 31 }, () => bucket.reserve());
    expect(after.filter((wait) => wait === 0)).toHaveLength(30);
    expect(after[30]).toBeCloseTo(50);
  });

  test("flags win over the environment, the environment over the defaults", () => {
    expect(parseClientRateLimit({}, {})).toEqual({ qps: 20, burst: 30 });
    expect(parseClientRateLimit({}, { SLIPWAY_KUBE_API_QPS: "50", SLIPWAY_KUBE_API_BURST: "100" })).toEqual({
      qps: 50,
      burst: 100,
    });
    expect(parseClientRateLimit({ qps: "2.5", burst: "5" }, { SLIPWAY_KUBE_API_QPS: "50" })).toEqual({
      qps: 2.5,
      burst: 5,
    });
  });

  test("a bad value is refused naming the flag, its variable and the rule", () => {
    expect(() => parseClientRateLimit({ qps: "0" }, {})).toThrow(
      '--kube-api-qps (or SLIPWAY_KUBE_API_QPS) must be a number of requests a second above 0, not "0"',
    );
    expect(() => parseClientRateLimit({}, { SLIPWAY_KUBE_API_QPS: "fast" })).toThrow(/--kube-api-qps/);
    expect(() => parseClientRateLimit({ qps: "" }, {})).toThrow(/--kube-api-qps/);
    expect(() => parseClientRateLimit({ burst: "1.5" }, {})).toThrow(
      '--kube-api-burst (or SLIPWAY_KUBE_API_BURST) must be a whole number of at least 1, not "1.5"',
    );
    expect(() => parseClientRateLimit({ burst: "0" }, {})).toThrow(/--kube-api-burst/);
  });
});
