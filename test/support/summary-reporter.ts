import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import type { Reporter, SerializedError, TestModule, Vitest } from "vitest/node";
import { judgeSkips, type SkippedTest } from "./allowed-skips.ts";

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

/**
 * Where every run writes its durations; a run of `make test` adds the phases it timed before vitest
 * (set-up, typecheck, lint: tools/test/timed.sh, in the file $SLIPWAY_TEST_PHASES names).
 */
export const reportPath = ".slipway/test-report.json";

export interface OutsidePhase {
  phase: string;
  seconds: number;
  exit: number;
}

/** The phases tools/test/timed.sh wrote, one JSON line each; a line that is not one is left out. */
export function parsePhases(text: string): OutsidePhase[] {
  return text.split("\n").flatMap((line) => {
    try {
      const parsed = JSON.parse(line) as Partial<OutsidePhase>;
      return typeof parsed.phase === "string" && typeof parsed.seconds === "number"
        ? [{ phase: parsed.phase, seconds: parsed.seconds, exit: parsed.exit ?? 0 }]
        : [];
    } catch {
      return [];
    }
  });
}

/** One line of every phase's wall time, vitest's last: `phases: set-up 3.2 s, …, vitest 610.0 s`. */
export function phasesLine(outside: readonly OutsidePhase[], vitestSeconds: number): string {
  const all = [...outside, { phase: "vitest", seconds: vitestSeconds }];
  return `phases: ${all.map((p) => `${p.phase} ${p.seconds.toFixed(1)} s`).join(", ")}`;
}

export type Phase = "unit" | "integration" | "e2e";

export interface FileDuration {
  file: string;
  phase: Phase;
  /** Import, set-up and every test and hook of the file, in ms. */
  ms: number;
  tests: number;
  /** When the file started, in seconds after the run began (absent where not recorded). */
  startedSeconds?: number;
}

/** A test file's phase follows its directory: test/unit, test/integration or test/e2e. */
export function phaseOf(file: string): Phase {
  if (file.startsWith("test/unit/")) return "unit";
  if (file.startsWith("test/e2e/")) return "e2e";
  return "integration";
}

/** Each file's duration, slowest first; `started` maps a module id to its start in seconds after the run began. */
export function fileDurations(
  testModules: ReadonlyArray<TestModule>,
  root: string,
  started: ReadonlyMap<string, number> = new Map(),
): FileDuration[] {
  return testModules
    .map((module) => {
      const file = relative(root, module.moduleId);
      const d = module.diagnostic();
      const startedSeconds = started.get(module.moduleId);
      return {
        file,
        phase: phaseOf(file),
        ms: Math.round(d.collectDuration + d.setupDuration + d.prepareDuration + d.duration),
        tests: [...module.children.allTests()].length,
        ...(startedSeconds === undefined ? {} : { startedSeconds }),
      };
    })
    .sort((a, b) => b.ms - a.ms);
}

/** The summed file durations per phase, in seconds (files may run in parallel: a sum, not a wall time). */
export function phaseTotals(files: ReadonlyArray<FileDuration>): Record<Phase, number> {
  const totals: Record<Phase, number> = { unit: 0, integration: 0, e2e: 0 };
  for (const file of files) totals[file.phase] += file.ms / 1000;
  return totals;
}

/** The closing lines: the ten slowest files with their seconds. */
export function slowestLines(files: ReadonlyArray<FileDuration>, count = 10): string[] {
  return [
    `the ${Math.min(count, files.length)} slowest test files:`,
    ...files.slice(0, count).map((f) => `  ${(f.ms / 1000).toFixed(1).padStart(7)} s  ${f.file}`),
  ];
}

/** Every skipped test with its reason (from `skipFor` or `ctx.skip(note)`); a module that failed skips nothing. */
export function skippedTests(testModules: ReadonlyArray<TestModule>, root: string): SkippedTest[] {
  return testModules.flatMap((module) =>
    module.state() === "failed" && module.errors().length > 0
      ? []
      : [...module.children.allTests()].flatMap((test) => {
          const result = test.result();
          if (result.state !== "skipped") return [];
          const reason = test.meta().skipReason ?? result.note;
          return [{ name: `${relative(root, module.moduleId)} › ${test.fullName}`, reason }];
        }),
  );
}

/** The first line of an error's message, so a CI log's tail names what failed without its stack. */
function firstLine(error: SerializedError | undefined): string {
  return (error?.message ?? "").split("\n")[0]?.trim() ?? "";
}

/**
 * One line per failure, `failed: file › test — message` (or `failed: file — message` for a file that
 * failed outside its tests): CI keeps only a log's tail, and the summary's counts alone do not say what to look at.
 */
export function failureLines(testModules: ReadonlyArray<TestModule>, root: string): string[] {
  return testModules.flatMap((module) => {
    const file = relative(root, module.moduleId);
    const outside = module.errors().map((error) => `failed: ${file} — ${firstLine(error)}`);
    const tests = [...module.children.allTests()].flatMap((test) => {
      const result = test.result();
      return result.state === "failed"
        ? [`failed: ${file} › ${test.fullName} — ${firstLine(result.errors?.[0])}`]
        : [];
    });
    return [...outside, ...tests];
  });
}

/** A run that selects tests (`-t`, `.only`) skips the others without a reason. */
function isFiltered(testModules: ReadonlyArray<TestModule>, namePattern: unknown): boolean {
  if (namePattern) return true;
  return testModules.some((module) =>
    [...module.children.allTests()].some((test) => test.options.mode === "only"),
  );
}

interface Report {
  /** Wall times of the phases `make test` ran before vitest (tools/test/timed.sh); empty outside it. */
  phases: OutsidePhase[];
  /** Summed file durations in seconds per phase. */
  filePhases: Record<Phase, number>;
  vitestWallSeconds: number;
  files: FileDuration[];
}

function writeReport(report: Report, path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
}

/**
 * Ends the run with one plain summary line, after the ten slowest files, every skipped test with its
 * reason and every failure with its first line; writes each file's duration to the report. A test
 * skipped for a reason not on the list (test/support/allowed-skips.ts) fails the run.
 */
export default class SummaryReporter implements Reporter {
  private readonly started = Date.now();
  private readonly root: string;
  private readonly path: string | undefined;
  private readonly phasesPath: string | undefined;
  private namePattern: unknown;
  /** Each module's start, in seconds after the run began: which files the run's tail waits on. */
  private readonly moduleStarts = new Map<string, number>();

  constructor(options: { root?: string; reportPath?: string | false; phasesPath?: string } = {}) {
    this.root = options.root ?? process.cwd();
    this.path = options.reportPath === false ? undefined : (options.reportPath ?? reportPath);
    this.phasesPath = options.phasesPath ?? process.env.SLIPWAY_TEST_PHASES;
  }

  onInit(vitest: Vitest): void {
    this.namePattern = vitest.config.testNamePattern;
  }

  onTestModuleStart(module: TestModule): void {
    this.moduleStarts.set(module.moduleId, Math.round((Date.now() - this.started) / 100) / 10);
  }

  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): void {
    const files = fileDurations(testModules, this.root, this.moduleStarts);
    const phases =
      this.phasesPath && existsSync(this.phasesPath)
        ? parsePhases(readFileSync(this.phasesPath, "utf8"))
        : [];
    const vitestWallSeconds = (Date.now() - this.started) / 1000;
    if (this.path)
      writeReport({ phases, filePhases: phaseTotals(files), vitestWallSeconds, files }, this.path);
    const lines = files.length ? ["", ...slowestLines(files)] : [];
    if (phases.length) lines.push("", phasesLine(phases, vitestWallSeconds));
    const skips = judgeSkips(skippedTests(testModules, this.root), {
      filtered: isFiltered(testModules, this.namePattern),
    });
    if (skips.lines.length) lines.push("", ...skips.lines);
    if (skips.fails) process.exitCode = 1;
    const failures = failureLines(testModules, this.root);
    if (failures.length) lines.push("", ...failures);
    lines.push("", summaryLine(summarize(testModules), unhandledErrors.length));
    process.stdout.write(`${lines.join("\n")}\n`);
  }
}
