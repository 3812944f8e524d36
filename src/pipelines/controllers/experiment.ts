import type { Experiment } from "../../apis/pipelines/experiment.ts";
import type { ControllerSpec } from "../../kube/types.ts";
import type { ExperimentDefinition } from "../backend.ts";
import { type SyncedKind, syncReconciler } from "../sync/reconciler.ts";
import { experimentType } from "../types.ts";
import { versionOf } from "../version.ts";
import { providerWatch } from "./indexes.ts";
import { syncedPermissions } from "./permissions.ts";

export const experimentKind: SyncedKind<Experiment, ExperimentDefinition> = {
  type: experimentType,
  version: (experiment) => versionOf(experiment.spec),
  definition: (experiment, owner) => ({ owner, description: experiment.spec.description }),
  objects: (backend) => backend.experiments,
};

export function experimentController(): ControllerSpec {
  const provider = providerWatch(experimentType);
  return {
    name: "experiment",
    for: experimentType,
    watches: [provider.watch],
    indexes: [provider.index],
    reconcile: syncReconciler(experimentKind),
    permissions: syncedPermissions(experimentType, []),
  };
}
