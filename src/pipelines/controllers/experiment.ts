import type { Experiment } from "../../apis/pipelines/experiment.ts";
import type { ControllerSpec } from "../../kube/types.ts";
import type { BackendRegistry, ExperimentDefinition } from "../backend.ts";
import { ready } from "../blockers.ts";
import type { SyncedKind } from "../sync/kind.ts";
import { types } from "../types.ts";
import { versionOf } from "../version.ts";
import { providerSyncedController } from "./synced-controller.ts";

export const experimentKind: SyncedKind<Experiment, ExperimentDefinition> = {
  type: types.experiment,
  role: "experiment",
  version: (experiment) => versionOf(experiment.spec),
  definition: (experiment, owner) => ready({ owner, description: experiment.spec.description }),
  objects: (backend) => backend.experiments,
};

export const experimentController = (deps: { backends: BackendRegistry }): ControllerSpec =>
  providerSyncedController("experiment", experimentKind, deps.backends);
