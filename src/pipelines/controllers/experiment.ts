import type { Experiment } from "../../apis/pipelines/experiment.ts";
import type { ControllerSpec } from "../../kube/types.ts";
import type { BackendRegistry, ExperimentDefinition } from "../backend.ts";
import { ready } from "../blockers.ts";
import type { SyncedKind } from "../sync/kind.ts";
import { syncReconciler } from "../sync/reconciler.ts";
import { types } from "../types.ts";
import { versionOf } from "../version.ts";
import { providerWatch } from "./indexes.ts";
import { syncedPermissions } from "./permissions.ts";

export const experimentKind: SyncedKind<Experiment, ExperimentDefinition> = {
  type: types.experiment,
  role: "experiment",
  version: (experiment) => versionOf(experiment.spec),
  definition: (experiment, owner) => ready({ owner, description: experiment.spec.description }),
  objects: (backend) => backend.experiments,
};

export function experimentController(deps: { backends: BackendRegistry }): ControllerSpec {
  const provider = providerWatch(types.experiment);
  return {
    name: "experiment",
    for: types.experiment,
    watches: [provider.watch],
    indexes: [provider.index],
    reconcile: syncReconciler(experimentKind, deps.backends),
    permissions: syncedPermissions(types.experiment, deps.backends, experimentKind.role),
  };
}
