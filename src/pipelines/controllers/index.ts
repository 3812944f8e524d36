import type { ControllerSpec } from "../../kube/types.ts";
import type { BackendRegistry } from "../backend.ts";
import { EventDispatcher, type EventsOptions } from "../events/dispatcher.ts";
import type { ServiceAccountPolicy } from "../provider-service-accounts.ts";
import { experimentController } from "./experiment.ts";
import { pipelineController } from "./pipeline.ts";
import { providerController } from "./provider.ts";
import { type RunOptions, runController } from "./run.ts";
import { runConfigurationController } from "./run-configuration.ts";
import { runScheduleController } from "./run-schedule.ts";

/**
 * The controllers of the pipelines.slipway.dev kinds, running the backends of `backends` (by provider
 * type); `events`: the operator's event sinks and delivery policy, or an existing dispatcher.
 */
export function pipelineControllers(deps: {
  backends: BackendRegistry;
  /** The ServiceAccounts a Provider may name (the operator's allowlist); default none. */
  serviceAccounts?: ServiceAccountPolicy;
  run?: RunOptions;
  events?: EventsOptions | EventDispatcher;
}): ControllerSpec[] {
  const events = deps.events instanceof EventDispatcher ? deps.events : new EventDispatcher(deps.events);
  return [
    providerController(deps),
    pipelineController(deps),
    experimentController(deps),
    runController({ ...deps, events }),
    runScheduleController({ ...deps, events }),
    runConfigurationController(),
  ];
}
