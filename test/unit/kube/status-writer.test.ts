import { describe, expect, it } from "vitest";
import { pacingHoldMs, soonerRequeue } from "../../../src/kube/status-writer.ts";

interface Status {
  phase: string;
  ready: number;
  message: string;
}

describe("pacingHoldMs", () => {
  const pacing = { intervalMs: 1_000, headline: ["phase", "ready"] as const };
  const before: Status = { phase: "Deploying", ready: 0, message: "0/3 pods updated" };
  const detail: Status = { ...before, message: "1/3 pods updated" };

  it("holds a detail-only change until an interval after the object's last write", () => {
    // never written by this process: nothing to wait for
    expect(pacingHoldMs(pacing, before, detail, undefined, 5_000)).toBe(0);
    expect(pacingHoldMs(pacing, before, detail, 5_000, 5_300)).toBe(700);
    expect(pacingHoldMs(pacing, before, detail, 5_000, 6_000)).toBe(0);
  });

  it("writes a headline change at once", () => {
    expect(pacingHoldMs(pacing, before, { ...detail, ready: 1 }, 5_000, 5_300)).toBe(0);
    expect(pacingHoldMs(pacing, before, { ...detail, phase: "Ready" }, 5_000, 5_300)).toBe(0);
  });
});

describe("soonerRequeue", () => {
  it("takes the smaller positive delay; 0 and undefined mean none", () => {
    expect(soonerRequeue(0, undefined)).toBeUndefined();
    expect(soonerRequeue(700, 15_000)).toBe(700);
    expect(soonerRequeue(0, 5_000)).toBe(5_000);
    expect(soonerRequeue(undefined, 50)).toBe(50);
  });
});
