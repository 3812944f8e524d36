/**
 * The delivery step of a controller whose resources record completions in `status.events` (Run,
 * RunSchedule): a status step of its sync reconciler (src/pipelines/sync/status-steps.ts).
 */
import type { Condition } from "../../kube/conditions.ts";
import type { Cache, KubeObject, ResourceType } from "../../kube/types.ts";
import type { SyncedResource } from "../sync/kind.ts";
import type { StatusStep } from "../sync/status-steps.ts";
import { eventsCondition, nextRetryInMs } from "./delivery.ts";
import type { EventDispatcher } from "./dispatcher.ts";
import type { CompletionIdentity, DeliveryRecord } from "./event.ts";
import type { Sink } from "./sinks.ts";

export type WithEvents = KubeObject & {
  metadata: NonNullable<KubeObject["metadata"]>;
  status?: { events?: DeliveryRecord[]; conditions?: Condition[] };
};

/** How a kind's completions are identified and where they go. */
export interface EventSource<R extends WithEvents> {
  type: ResourceType;
  identity(resource: R): CompletionIdentity;
  /** The sinks configured now, by name (operator, Provider, the resource's own). */
  sinks(resource: R, cache: Cache): ReadonlyMap<string, Sink>;
}

/**
 * Attempts the deliveries that are due and answers the delivery state and the EventsDelivered
 * condition for the reconcile's one status write (a Warning Event when delivery has just failed).
 */
export function eventDeliveryStep<R extends WithEvents & SyncedResource>(
  source: EventSource<R>,
  dispatcher: EventDispatcher,
): StatusStep<R> {
  return async (resource, status, context) => {
    const records = status.events;
    if (!records?.length || resource.metadata.deletionTimestamp) return undefined;
    const events = await dispatcher.deliver(
      source.identity(resource),
      records,
      source.sinks(resource, context.cache),
    );
    const condition = eventsCondition(events);
    const previous = status.conditions?.find((c) => c.type === condition?.type);
    const failedNow = condition?.status === "False" && previous?.status !== "False";
    return {
      status: { events },
      ...(condition ? { condition } : {}),
      ...(failedNow && condition
        ? { event: { type: "Warning", reason: condition.reason, message: condition.message } }
        : {}),
      requeueAfterMs: nextRetryInMs(events, Date.now()),
    };
  };
}
