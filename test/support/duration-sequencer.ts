import { existsSync, readFileSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { reportPath } from "./summary-reporter.ts";

/**
 * The seconds each test file took in a recent run of the whole suite (`npm run test:durations`
 * writes it from the run's report). Committed, as pytest-split commits its `.test_durations`: a fresh
 * clone has no vitest cache, and without durations the longest files may start last and make the tail.
 */
export const durationsPath = "test/durations.json";

/** What a file no run has timed is expected to take, by its directory: e2e files start platforms. */
export function expectedSecondsOf(file: string, durations: Readonly<Record<string, number>>): number {
  const recorded = durations[file];
  if (recorded !== undefined) return recorded;
  if (file.startsWith("test/e2e/")) return 60;
  if (file.startsWith("test/unit/")) return 1;
  return 20;
}

/**
 * Longest expected first (the classic longest-processing-time order): the long files overlap, and the
 * short ones, unit files among them, fill the workers at the end. Stable for equal estimates. Pure.
 */
export function longestFirst<T>(files: readonly T[], secondsOf: (file: T) => number): T[] {
  return files
    .map((file, index) => ({ file, index, seconds: secondsOf(file) }))
    .sort((a, b) => b.seconds - a.seconds || a.index - b.index)
    .map(({ file }) => file);
}

/** Each file's seconds in a run's report (summary-reporter.ts), by file name. Pure. */
export function durationsOfReport(reportText: string): Record<string, number> {
  const { files } = JSON.parse(reportText) as { files?: { file: string; ms: number }[] };
  return Object.fromEntries(
    (files ?? [])
      .map(({ file, ms }) => [file, Math.round(ms / 100) / 10] as const)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}

/** The durations of the last local run override the committed ones: they are this machine's. */
export function loadDurations(root: string): Record<string, number> {
  const committed = `${root}/${durationsPath}`;
  const durations = existsSync(committed) ? JSON.parse(readFileSync(committed, "utf8")) : {};
  const report = `${root}/${reportPath}`;
  try {
    if (existsSync(report)) Object.assign(durations, durationsOfReport(readFileSync(report, "utf8")));
  } catch {
    // a report cut short by an interrupted run: the committed durations do
  }
  return durations;
}

/** vitest's sequencer, ordering each group's files by `longestFirst` of their expected seconds. */
export default class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const durations = loadDurations(root);
    const grouped = new Map<number, TestSpecification[]>();
    for (const file of files) {
      const group = file.project.config.sequence.groupOrder;
      grouped.set(group, [...(grouped.get(group) ?? []), file]);
    }
    return [...grouped.entries()]
      .sort(([a], [b]) => a - b)
      .flatMap(([, group]) =>
        longestFirst(group, (spec) => expectedSecondsOf(relative(root, spec.moduleId), durations)),
      );
  }
}
