/** The kinds the runtime itself writes, whatever the controllers are: Events and the leader Lease. */
import type { ResourceType } from "./types.ts";

export const eventType: ResourceType = {
  group: "events.k8s.io",
  version: "v1",
  kind: "Event",
  plural: "events",
  namespaced: true,
};

export const leaseType: ResourceType = {
  group: "coordination.k8s.io",
  version: "v1",
  kind: "Lease",
  plural: "leases",
  namespaced: true,
};
