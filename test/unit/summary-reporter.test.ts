import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { startVitest } from "vitest/node";
import { externalCluster } from "../support/allowed-skips.ts";
import SummaryReporter, {
  type FileDuration,
  parsePhases,
  phaseOf,
  phasesLine,
  phaseTotals,
  slowestLines,
  summaryLine,
} from "../support/summary-reporter.ts";

const fixtures = fileURLToPath(new URL("fixtures/summary-reporter", import.meta.url));
const timed = fileURLToPath(new URL("../../tools/test/timed.sh", import.meta.url));

/**
 * Runs vitest on fixture files (passes.check.ts passes one and skips one, fails-on-import one fails on
 * import, fails-in-before-all in beforeAll; skips-*.check.ts skip for reasons on the list and not) with
 * the summary reporter; returns the lines it printed and the exit code it left.
 */
async function summaryOfFixtures(
  include = ["passes.check.ts", "fails-*.check.ts"],
  reportPath: string | false = false,
): Promise<{ lines: string[]; exitCode: number | string | undefined }> {
  const printed: string[] = [];
  const reporter = new SummaryReporter({ root: fixtures, reportPath, phasesPath: "" });
  const write = process.stdout.write;
  let exitCode: number | string | undefined;
  const capture = {
    onTestModuleStart: (...args: Parameters<SummaryReporter["onTestModuleStart"]>) =>
      reporter.onTestModuleStart(...args),
    onTestRunEnd: (...args: Parameters<SummaryReporter["onTestRunEnd"]>) => {
      process.stdout.write = ((chunk: string) => printed.push(chunk) > 0) as typeof process.stdout.write;
      const before = process.exitCode;
      process.exitCode = undefined;
      try {
        reporter.onTestRunEnd(...args);
      } finally {
        process.stdout.write = write;
        exitCode = process.exitCode ?? undefined;
        process.exitCode = before;
      }
    },
  };
  const vitest = await startVitest(
    "test",
    [],
    { config: false, root: fixtures, include, watch: false, reporters: [capture] },
    {},
  );
  await vitest.close();
  process.exitCode = undefined; // the fixtures' failures are this test's subject, not this run's
  return { lines: printed.join("").trim().split("\n"), exitCode };
}

describe("the summary reporter", () => {
  it("counts files that fail before their tests run, and the tests in them, as failed", async () => {
    expect((await summaryOfFixtures()).lines.at(-1)).toBe(
      "1 passed, 3 failed, 1 skipped (2 test file(s) failed outside their tests)",
    );
  });

  it("names every failure with the first line of its error before the counts, for a log read from its tail", async () => {
    const { lines } = await summaryOfFixtures();
    const failures = lines.filter((line) => line.startsWith("failed: ")).sort();
    expect(failures).toEqual([
      "failed: fails-in-before-all.check.ts — the set-up fails",
      expect.stringMatching(/^failed: fails-on-import\.check\.ts — .*JSON/),
    ]);
  });

  it("records when each file started, so a report shows which files the run's tail waited on", async () => {
    const dir = await mkdtemp(join(tmpdir(), "slipway-report-"));
    try {
      const reportPath = join(dir, "report.json");
      await summaryOfFixtures(["passes.check.ts"], reportPath);
      const report = JSON.parse(await readFile(reportPath, "utf8")) as { files: FileDuration[] };
      expect(report.files.map((f) => f.file)).toEqual(["passes.check.ts"]);
      expect(report.files[0]?.startedSeconds).toBeGreaterThanOrEqual(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("names every skipped test with its reason; passes a run whose skips are all on the list", async () => {
    const { lines, exitCode } = await summaryOfFixtures(["skips-allowed.check.ts"]);
    expect(lines.slice(-4)).toEqual([
      "1 skipped test(s):",
      `  allowed: skips-allowed.check.ts › the local plane's files > reads the state — ${externalCluster}`,
      "",
      "1 passed, 0 failed, 1 skipped",
    ]);
    expect(exitCode).toBeUndefined();
  });

  it("fails a run with a test skipped for a reason not on the list, or for none", async () => {
    const { lines, exitCode } = await summaryOfFixtures(["skips-refused.check.ts", "passes.check.ts"]);
    expect(lines.slice(-5)).toEqual([
      "2 skipped test(s), 2 for a reason not on the list (test/support/allowed-skips.ts): the run fails:",
      "  NOT ALLOWED: passes.check.ts › is skipped — no reason given",
      "  NOT ALLOWED: skips-refused.check.ts › needs Python — no Python",
      "",
      "2 passed, 0 failed, 2 skipped",
    ]);
    expect(exitCode).toBe(1);
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

  it("merges the phases tools/test/timed.sh timed (with each one's exit status) into the report", async () => {
    const dir = await mkdtemp(join(tmpdir(), "slipway-phases-"));
    try {
      const phasesPath = join(dir, "phases.jsonl");
      const env = { ...process.env, SLIPWAY_TEST_PHASES: phasesPath };
      await promisify(execFile)(timed, ["typecheck", "true"], { env });
      const failed = await promisify(execFile)(timed, ["lint", "sh", "-c", "exit 3"], { env }).catch(
        (e) => e,
      );
      expect(failed.code).toBe(3);
      const phases = parsePhases(`${await readFile(phasesPath, "utf8")}not json\n`);
      expect(phases.map(({ phase, exit }) => ({ phase, exit }))).toEqual([
        { phase: "typecheck", exit: 0 },
        { phase: "lint", exit: 3 },
      ]);
      expect(phases.every((p) => p.seconds >= 0 && p.seconds < 10)).toBe(true);

      const reportPath = join(dir, "report.json");
      const write = process.stdout.write;
      const printed: string[] = [];
      process.stdout.write = ((chunk: string) => printed.push(chunk) > 0) as typeof process.stdout.write;
      try {
        new SummaryReporter({ root: fixtures, reportPath, phasesPath }).onTestRunEnd([], []);
      } finally {
        process.stdout.write = write;
      }
      const report = JSON.parse(await readFile(reportPath, "utf8"));
      expect(report.phases).toEqual(phases);
      expect(printed.join("")).toMatch(/phases: typecheck \d+\.\d s, lint \d+\.\d s, vitest \d+\.\d s\n/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("prints every phase's wall time, vitest's last", () => {
    expect(phasesLine([{ phase: "set-up", seconds: 3.24, exit: 0 }], 610)).toBe(
      "phases: set-up 3.2 s, vitest 610.0 s",
    );
  });
});
