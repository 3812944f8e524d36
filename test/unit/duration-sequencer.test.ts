import { describe, expect, it } from "vitest";
import { durationsOfReport, expectedSecondsOf, longestFirst } from "../support/duration-sequencer.ts";

describe("the duration sequencer", () => {
  it("starts the longest files first, keeping the given order among equals", () => {
    const seconds: Record<string, number> = { a: 5, b: 120, c: 5, d: 30 };
    expect(longestFirst(["a", "b", "c", "d"], (f) => seconds[f] ?? 0)).toEqual(["b", "d", "a", "c"]);
  });

  it("expects a file no run timed to take what its directory's files usually take", () => {
    const durations = { "test/unit/known.test.ts": 7.5 };
    expect(
      [
        "test/unit/known.test.ts",
        "test/unit/new.test.ts",
        "test/integration/new.test.ts",
        "test/e2e/new.test.ts",
      ].map((file) => expectedSecondsOf(file, durations)),
    ).toEqual([7.5, 1, 20, 60]);
  });

  it("reads each file's seconds from a run's report, sorted by file", () => {
    const report = JSON.stringify({
      files: [
        { file: "test/unit/b.test.ts", ms: 1249, phase: "unit", tests: 1 },
        { file: "test/e2e/a.test.ts", ms: 61_050, phase: "e2e", tests: 2 },
      ],
    });
    expect(Object.entries(durationsOfReport(report))).toEqual([
      ["test/e2e/a.test.ts", 61.1],
      ["test/unit/b.test.ts", 1.2],
    ]);
  });
});
