/**
 * What a RunConfiguration wants, as a pure function of it and what it observes: one RunSchedule per
 * schedule, a new Run when a trigger fired, and the latest succeeded run for others to consume.
 */
import type { Run } from "../apis/pipelines/run.ts";
import type { RunConfiguration } from "../apis/pipelines/run-configuration.ts";
import type { RunSchedule } from "../apis/pipelines/run-schedule.ts";
import { versionOf } from "./version.ts";

export interface RunConfigurationObserved {
  /** The Pipeline's synchronized version, when it has one. */
  pipelineVersion?: string;
  /** Latest succeeded run id of each RunConfiguration named in triggers.runConfigurations. */
  sourceRuns: Record<string, string | undefined>;
  /** Runs this RunConfiguration owns. */
  runs: Run[];
  /** Names of the RunSchedules it owns. */
  schedules: string[];
}

export type Triggers = NonNullable<NonNullable<RunConfiguration["status"]>["triggers"]>;
export type LatestRuns = NonNullable<NonNullable<RunConfiguration["status"]>["latestRuns"]>;

export interface RunConfigurationPlan {
  schedules: { name: string; spec: RunSchedule["spec"] }[];
  deleteSchedules: string[];
  /** A Run to create (its name is derived from what triggered it, so re-applying it is harmless). */
  run?: { name: string; spec: Run["spec"]; reasons: string[] };
  triggers: Triggers;
  latestRuns: LatestRuns;
}

/**
 * A schedule's RunSchedule is named by its place in the list: an edit of a schedule is an update of
 * its RunSchedule (which never leaves two live backend schedules, nor deletes the live one when the
 * backend refuses the new one), not a new RunSchedule beside the old one.
 */
export const scheduleName = (configuration: string, index: number) => `${configuration}-${index}`;

function latestSucceeded(runs: Run[]): LatestRuns["succeeded"] {
  const succeeded = runs
    .filter((run) => run.status?.completionState === "Succeeded" && run.status.completedAt)
    .sort(
      (a, b) =>
        (a.status?.completedAt ?? "").localeCompare(b.status?.completedAt ?? "") ||
        (a.metadata.creationTimestamp ? String(a.metadata.creationTimestamp) : "").localeCompare(
          b.metadata.creationTimestamp ? String(b.metadata.creationTimestamp) : "",
        ),
    )
    .at(-1);
  if (!succeeded) return undefined;
  return { id: succeeded.metadata.name ?? "", artifacts: succeeded.status?.artifacts ?? [] };
}

export function planRunConfiguration(
  configuration: RunConfiguration,
  observed: RunConfigurationObserved,
): RunConfigurationPlan {
  const name = configuration.metadata.name ?? "";
  const { provider, run, triggers = {} } = configuration.spec;
  const recorded = configuration.status?.triggers ?? {};

  const schedules = (triggers.schedules ?? []).map(
    ({ cronExpression, startTime, endTime, ...policy }, index) => ({
      name: scheduleName(name, index),
      spec: {
        provider,
        ...run,
        schedule: { cronExpression, ...(startTime ? { startTime } : {}), ...(endTime ? { endTime } : {}) },
        ...policy,
      },
    }),
  );
  const wanted = new Set(schedules.map((s) => s.name));
  const deleteSchedules = observed.schedules.filter((s) => !wanted.has(s));

  const next: Triggers = {};
  const reasons: string[] = [];
  const onChange = triggers.onChange ?? [];
  if (onChange.includes("pipeline")) {
    next.pipelineVersion = observed.pipelineVersion ?? recorded.pipelineVersion;
    if (observed.pipelineVersion && observed.pipelineVersion !== recorded.pipelineVersion) {
      reasons.push(`pipeline version ${observed.pipelineVersion}`);
    }
  }
  if (onChange.includes("runSpec")) {
    next.runSpecVersion = versionOf(run);
    if (next.runSpecVersion !== recorded.runSpecVersion)
      reasons.push(`run spec version ${next.runSpecVersion}`);
  }
  const sources: Record<string, string> = {};
  for (const source of triggers.runConfigurations ?? []) {
    const id = observed.sourceRuns[source] ?? recorded.runConfigurations?.[source];
    if (id) sources[source] = id;
    if (observed.sourceRuns[source] && observed.sourceRuns[source] !== recorded.runConfigurations?.[source]) {
      reasons.push(`RunConfiguration ${source} run ${observed.sourceRuns[source]} succeeded`);
    }
  }
  if (Object.keys(sources).length) next.runConfigurations = sources;

  return {
    schedules,
    deleteSchedules,
    ...(reasons.length
      ? {
          run: {
            name: `${name}-${versionOf({ run, next }).slice(0, 8)}`,
            spec: { provider, ...run },
            reasons,
          },
        }
      : {}),
    triggers: next,
    latestRuns: { ...(latestSucceeded(observed.runs) ? { succeeded: latestSucceeded(observed.runs) } : {}) },
  };
}
