import { describe, expect, it } from "vitest";
import { ProgressPacer } from "../../../src/kube/progress-pacer.ts";

interface Status {
  phase: string;
  ready: number;
  message: string;
}

describe("ProgressPacer", () => {
  it("writes a headline change at once and a detail-only change at most once per interval", () => {
    const pacer = new ProgressPacer<Status>({ intervalMs: 1_000, headline: ["phase", "ready"] });
    const before: Status = { phase: "Deploying", ready: 0, message: "0/3 pods updated" };
    const detail: Status = { ...before, message: "1/3 pods updated" };
    // never written by this process: nothing to wait for
    expect(pacer.holdMs("a", before, detail, 5_000)).toBe(0);
    pacer.wrote("a", 5_000);
    expect(pacer.holdMs("a", before, detail, 5_300)).toBe(700);
    expect(pacer.holdMs("a", before, { ...detail, ready: 1 }, 5_300)).toBe(0);
    expect(pacer.holdMs("a", before, { ...detail, phase: "Ready" }, 5_300)).toBe(0);
    expect(pacer.holdMs("a", before, detail, 6_000)).toBe(0);
    // another object is paced on its own
    expect(pacer.holdMs("b", before, detail, 5_300)).toBe(0);
  });
});
