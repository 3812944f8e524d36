/** Recorded sync state ↔ the status fields every pipeline resource shares. */
import { type Condition, rfc3339, setCondition } from "../../kube/conditions.ts";
import type { DeliveryRecord } from "../events/event.ts";
import type { Recorded } from "./state-machine.ts";

export interface SharedStatus {
  provider?: { name: string; id?: string; configVersion?: string };
  state?: Recorded["state"];
  version?: string;
  failedAttempts?: number;
  retryAt?: string;
  observedGeneration?: number;
  conditions?: Condition[];
  /** Completion events and their delivery (src/pipelines/events/): carried over by every write. */
  events?: DeliveryRecord[];
}

export function recordedOf(status: SharedStatus | undefined): Recorded {
  return {
    state: status?.state,
    provider: status?.provider?.name,
    id: status?.provider?.id,
    version: status?.version,
    providerVersion: status?.provider?.configVersion,
    failedAttempts: status?.failedAttempts,
    retryAt: status?.retryAt ? Date.parse(status.retryAt) : undefined,
    observedGeneration: status?.observedGeneration,
  };
}

/** Drops undefined fields so a status compares and applies cleanly. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

export function statusOf(
  recorded: Recorded,
  previous: SharedStatus | undefined,
  synchronized: { message: string },
  accepted: { reason: string; message: string } | undefined,
  now: Date,
): SharedStatus {
  const state = recorded.state;
  const generation = recorded.observedGeneration;
  let conditions = setCondition(
    previous?.conditions,
    {
      type: "Synchronized",
      status: state === "Succeeded" ? "True" : state === "Failed" ? "False" : "Unknown",
      reason: state ?? "Pending",
      message: synchronized.message,
    },
    generation,
    now,
  );
  conditions = setCondition(
    conditions,
    accepted
      ? { type: "ProviderAccepted", status: "False", ...accepted }
      : {
          type: "ProviderAccepted",
          status: "True",
          reason: "Accepted",
          message: "the Provider may be used from this namespace",
        },
    generation,
    now,
  );
  return defined({
    provider: recorded.provider
      ? defined({ name: recorded.provider, id: recorded.id, configVersion: recorded.providerVersion })
      : undefined,
    state,
    version: recorded.version,
    failedAttempts: recorded.failedAttempts || undefined,
    retryAt: recorded.retryAt === undefined ? undefined : rfc3339(new Date(recorded.retryAt)),
    observedGeneration: generation,
    conditions,
    events: previous?.events,
  });
}
