import type { ControllerSpec } from "../../kube/types.ts";
import { experimentController } from "./experiment.ts";
import { pipelineController } from "./pipeline.ts";
import { providerController } from "./provider.ts";
import { type RunOptions, runController } from "./run.ts";
import { runConfigurationController } from "./run-configuration.ts";
import { runScheduleController } from "./run-schedule.ts";

/** The controllers of the pipelines.slipway.dev kinds. */
export function pipelineControllers(options: { run?: RunOptions } = {}): ControllerSpec[] {
  return [
    providerController(),
    pipelineController(),
    experimentController(),
    runController(options.run),
    runScheduleController(),
    runConfigurationController(),
  ];
}
