/**
 * The delivery step of a controller whose resources record completions in `status.events` (Run,
 * RunSchedule): attempt what is due, then write the delivery state and the EventsDelivered condition
 * through the step's own StatusWriter (nothing is sent when nothing changed).
 */
import type { Condition } from "../../kube/conditions.ts";
import { setCondition } from "../../kube/conditions.ts";
import { StatusWriter, soonerRequeue, staleCopyRetryMs } from "../../kube/status-writer.ts";
import type {
  Cache,
  KubeObject,
  ObjectKey,
  Reconcile,
  ReconcileContext,
  ResourceType,
} from "../../kube/types.ts";
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

export interface DeliveryStep {
  /** A status write was made or refused as stale: the rest of the reconcile waits for the cache. */
  wrote: boolean;
  requeueAfterMs?: number;
}

type Status = NonNullable<WithEvents["status"]>;

export function eventDeliveryStep<R extends WithEvents>(
  source: EventSource<R>,
  dispatcher: EventDispatcher,
): (key: ObjectKey, context: ReconcileContext) => Promise<DeliveryStep> {
  const writer = new StatusWriter<Status>();
  return async (key, context) => {
    const resource = context.cache.get<R>(source.type, key);
    const records = resource?.status?.events;
    if (!resource || !records?.length || resource.metadata.deletionTimestamp) return { wrote: false };
    const events = await dispatcher.deliver(
      source.identity(resource),
      records,
      source.sinks(resource, context.cache),
    );
    const condition = eventsCondition(events);
    const previous = resource.status?.conditions;
    const conditions = condition ? setCondition(previous, condition, resource.metadata.generation) : previous;
    const failedNow =
      condition?.status === "False" && previous?.find((c) => c.type === condition.type)?.status !== "False";
    const written = await writer.write(
      context,
      resource,
      { ...resource.status, events, ...(conditions ? { conditions } : {}) },
      failedNow && condition
        ? { type: "Warning", reason: condition.reason, message: condition.message }
        : undefined,
    );
    const wrote = written.written || written.requeueAfterMs > 0;
    return {
      wrote,
      requeueAfterMs: soonerRequeue(written.requeueAfterMs, nextRetryInMs(events, Date.now())),
    };
  };
}

/**
 * Delivery first, then the controller's own reconcile: a reconcile that wrote delivery state comes
 * back once the cache holds it, so the two status writes never race on one cached copy.
 */
export function withEventDelivery(
  deliver: (key: ObjectKey, context: ReconcileContext) => Promise<DeliveryStep>,
  reconcile: Reconcile,
): Reconcile {
  return async (key, context) => {
    const step = await deliver(key, context);
    if (step.wrote)
      return { requeueAfterMs: soonerRequeue(staleCopyRetryMs, step.requeueAfterMs) ?? staleCopyRetryMs };
    const result = await reconcile(key, context);
    const requeueAfterMs = soonerRequeue(result?.requeueAfterMs, step.requeueAfterMs);
    return requeueAfterMs ? { requeueAfterMs } : undefined;
  };
}
