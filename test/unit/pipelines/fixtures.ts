import type { Recorded } from "../../../src/pipelines/sync/state-machine.ts";

/** A resource the backend has at the current versions, in Provider ml/argo. */
export const synced: Recorded = {
  state: "Succeeded",
  provider: "ml/argo",
  id: "wt-1",
  version: "v1",
  providerVersion: "p1",
  observedGeneration: 1,
};
