import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { startVitest } from "vitest/node";
import SummaryReporter, {
  type FileDuration,
  phaseOf,
  phaseTotals,
  slowestLines,
  summaryLine,
} from "../support/summary-reporter.ts";

const fixtures = fileURLToPath(new URL("fixtures/summary-reporter", import.meta.url));

/**
 * Runs vitest on the fixture files (one passes and skips one, one fails on import, one fails in
 * beforeAll) with the summary reporter; returns the lines it printed.
 */
async function summaryOfFixtures(): Promise<string> {
  const printed: string[] = [];
  const reporter = new SummaryReporter({ root: fixtures, reportPath: false });
  const write = process.stdout.write;
  const capture = {
    onTestRunEnd: (...args: Parameters<SummaryReporter["onTestRunEnd"]>) => {
      process.stdout.write = ((chunk: string) => printed.push(chunk) > 0) as typeof process.stdout.write;
      try {
        reporter.onTestRunEnd(...args);
      } finally {
        process.stdout.write = write;
      }
    },
  };
  const vitest = await startVitest(
    "test",
    [],
    { config: false, root: fixtures, include: ["*.check.ts"], watch: false, reporters: [capture] },
    {},
  );
  await vitest.close();
  process.exitCode = undefined; // the fixtures' failures are this test's subject, not this run's
  return printed.join("").trim().split("\n").at(-1) ?? "";
}

describe("the summary reporter", () => {
  it("counts files that fail before their tests run, and the tests in them, as failed", async () => {
    expect(await summaryOfFixtures()).toBe(
      "1 passed, 3 failed, 1 skipped (2 test file(s) failed outside their tests)",
    );
  });

  it("adds unhandled errors to the failures", () => {
    expect(summaryLine({ passed: 4, failed: 0, skipped: 0, failedFiles: 0 }, 1)).toBe(
      "4 passed, 1 failed, 0 skipped (1 unhandled error(s))",
    );
    expect(summaryLine({ passed: 4, failed: 0, skipped: 0, failedFiles: 0 })).toBe(
      "4 passed, 0 failed, 0 skipped",
    );
  });

  it("puts each file in the phase of its directory and sums the phases in seconds", () => {
    expect([
      phaseOf("test/unit/a.test.ts"),
      phaseOf("test/e2e/b.test.ts"),
      phaseOf("test/integration/c.test.ts"),
    ]).toEqual(["unit", "e2e", "integration"]);
    const files: FileDuration[] = [
      { file: "test/e2e/b.test.ts", phase: "e2e", ms: 4500, tests: 2 },
      { file: "test/unit/a.test.ts", phase: "unit", ms: 1500, tests: 3 },
      { file: "test/unit/c.test.ts", phase: "unit", ms: 500, tests: 1 },
    ];
    expect(phaseTotals(files)).toEqual({ unit: 2, integration: 0, e2e: 4.5 });
    expect(slowestLines(files, 2)).toEqual([
      "the 2 slowest test files:",
      "      4.5 s  test/e2e/b.test.ts",
      "      1.5 s  test/unit/a.test.ts",
    ]);
  });
});
