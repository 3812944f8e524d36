/**
 * What an operator under test is doing, so a test waits for "reconciled again" or "went quiet"
 * instead of sleeping and hoping the work it means happened.
 */
import type { Manager } from "../../src/kube/manager.ts";
import type { ObjectKey, ResourceType } from "../../src/kube/types.ts";
import { eventually } from "./cluster.ts";

/** How a reconcile ended: nothing to come back for, a requeue after `afterMs`, or an error (retried with backoff). */
export type ReconcileEnd =
  | { outcome: "done" }
  | { outcome: "requeued"; afterMs: number }
  | { outcome: "failed" };

export interface ReconcileTracker {
  /** Reconciles of `namespace`/`name` finished since tracking began. */
  count(namespace: string | undefined, name: string): number;
  /** How the last of them ended; undefined before the first. */
  lastEnd(namespace: string | undefined, name: string): ReconcileEnd | undefined;
}

/**
 * From now on, records each finished reconcile of `controller` per object: how many, and how the last
 * one ended (a reconcile already running is not seen).
 */
export function trackReconciles(manager: Manager, controller: string): ReconcileTracker {
  const spec = manager.controller(controller)?.spec;
  if (!spec) throw new Error(`the manager runs no controller ${controller}`);
  const counts = new Map<string, number>();
  const ends = new Map<string, ReconcileEnd>();
  const id = (namespace: string | undefined, name: string) => `${namespace ?? ""}/${name}`;
  const reconcile = spec.reconcile;
  spec.reconcile = async (key, context) => {
    let end: ReconcileEnd = { outcome: "failed" };
    try {
      const result = await reconcile(key, context);
      end =
        result?.requeueAfterMs === undefined
          ? { outcome: "done" }
          : { outcome: "requeued", afterMs: result.requeueAfterMs };
      return result;
    } finally {
      counts.set(id(key.namespace, key.name), (counts.get(id(key.namespace, key.name)) ?? 0) + 1);
      ends.set(id(key.namespace, key.name), end);
    }
  };
  return {
    count: (namespace, name) => counts.get(id(namespace, name)) ?? 0,
    lastEnd: (namespace, name) => ends.get(id(namespace, name)),
  };
}

/** The count of finished reconciles of `controller` per object from now on (see trackReconciles). */
export function reconcileCounter(
  manager: Manager,
  controller: string,
): (namespace: string, name: string) => number {
  return trackReconciles(manager, controller).count;
}

/** An object the manager caches, by its type and key. */
export interface CachedObject {
  type: ResourceType;
  key: ObjectKey;
}

/**
 * Waits until `controller` will not reconcile `object` again unless something changes: its last
 * reconcile (seen by `tracker`) ended with nothing to come back for (or, with `idleBeyondMs`, a requeue
 * at least that far off: a TTL, a slow poll), nothing of the controller is queued or in flight, and the
 * manager's cache holds `object` and `related` (children or watched objects whose events enqueue it)
 * at the API server's current resourceVersion, so no event for them is still on its way. Then a count
 * of what the operator sent is final.
 */
export async function reconciledAndIdle(
  manager: Manager,
  controller: string,
  tracker: ReconcileTracker,
  object: CachedObject,
  options: { related?: readonly CachedObject[]; idleBeyondMs?: number } = {},
): Promise<void> {
  const queue = manager.controller(controller)?.queue;
  if (!queue) throw new Error(`the manager runs no controller ${controller}`);
  const { namespace, name } = object.key;
  const idle = (end: ReconcileEnd | undefined) =>
    end?.outcome === "done" ||
    (end?.outcome === "requeued" &&
      options.idleBeyondMs !== undefined &&
      end.afterMs >= options.idleBeyondMs);
  const cacheCurrent = async ({ type, key }: CachedObject) => {
    const live = await manager.client.get(type, key);
    return manager.cache.get(type, key)?.metadata?.resourceVersion === live?.metadata?.resourceVersion;
  };
  await eventually(
    `${controller} done with ${namespace ?? ""}/${name}, its queue idle, its cache current`,
    async () => ({
      lastEnd: tracker.lastEnd(namespace, name),
      queued: queue.length,
      inFlight: queue.inFlight.size,
      cacheCurrent: (await Promise.all([object, ...(options.related ?? [])].map(cacheCurrent))).every(
        Boolean,
      ),
    }),
    (state) => idle(state.lastEnd) && state.queued === 0 && state.inFlight === 0 && state.cacheCurrent,
  );
}

export interface Activity {
  /** Keys queued or being reconciled (not those requeued for later: polls, backoffs). */
  pending: number;
  /** Reconciles of these controllers finished so far. */
  reconciles: number;
}

export async function activityOf(manager: Manager, controllers: readonly string[]): Promise<Activity> {
  let pending = 0;
  for (const name of controllers) {
    const queue = manager.controller(name)?.queue;
    if (!queue) throw new Error(`the manager runs no controller ${name}`);
    pending += queue.length + queue.inFlight.size;
  }
  const total = await manager.metrics.reconcileTotal.get();
  const ours = total.values.filter((value) => controllers.includes(String(value.labels.controller)));
  return { pending, reconciles: ours.reduce((sum, value) => sum + value.value, 0) };
}
