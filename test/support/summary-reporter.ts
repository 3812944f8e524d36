import type { Reporter, SerializedError, TestModule } from "vitest/node";

export interface RunSummary {
  passed: number;
  failed: number;
  skipped: number;
  /** Test files that failed outside their tests (an import, a hook, a syntax error). */
  failedFiles: number;
}

/**
 * The counts of a run. A file that failed outside its tests counts as one failure when it ran no
 * test, and every test in it that did not pass counts as failed (they did not run, they were not skipped).
 */
export function summarize(testModules: ReadonlyArray<TestModule>): RunSummary {
  const summary: RunSummary = { passed: 0, failed: 0, skipped: 0, failedFiles: 0 };
  for (const module of testModules) {
    const fileFailed = module.state() === "failed" && module.errors().length > 0;
    if (fileFailed) summary.failedFiles++;
    let tests = 0;
    for (const test of module.children.allTests()) {
      tests++;
      const state = test.result().state;
      if (state === "passed") summary.passed++;
      else if (state === "failed" || fileFailed) summary.failed++;
      else summary.skipped++;
    }
    if (fileFailed && tests === 0) summary.failed++;
  }
  return summary;
}

/** The one line a CI log reader understands: `N passed, N failed, N skipped` (and what failed outside tests). */
export function summaryLine(summary: RunSummary, unhandledErrors = 0): string {
  const outside = [
    summary.failedFiles ? `${summary.failedFiles} test file(s) failed outside their tests` : "",
    unhandledErrors ? `${unhandledErrors} unhandled error(s)` : "",
  ].filter(Boolean);
  const counts = `${summary.passed} passed, ${summary.failed + unhandledErrors} failed, ${summary.skipped} skipped`;
  return outside.length ? `${counts} (${outside.join("; ")})` : counts;
}

/** Ends the run with one plain summary line. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): void {
    process.stdout.write(`\n${summaryLine(summarize(testModules), unhandledErrors.length)}\n`);
  }
}
