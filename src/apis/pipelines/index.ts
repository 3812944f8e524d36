import { ExperimentKind } from "./experiment.ts";
import { PipelineKind } from "./pipeline.ts";
import { ProviderKind } from "./provider.ts";
import { RunKind } from "./run.ts";
import { RunConfigurationKind } from "./run-configuration.ts";
import { RunScheduleKind } from "./run-schedule.ts";

export * from "./common.ts";
export * from "./events.ts";
export * from "./experiment.ts";
export * from "./pipeline.ts";
export * from "./provider.ts";
export * from "./run.ts";
export * from "./run-configuration.ts";
export * from "./run-schedule.ts";

export const pipelineKinds = [
  ProviderKind,
  PipelineKind,
  ExperimentKind,
  RunKind,
  RunScheduleKind,
  RunConfigurationKind,
];
