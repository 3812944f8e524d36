/**
 * What an operator under test is doing, so a test waits for "reconciled again" or "went quiet"
 * instead of sleeping and hoping the work it means happened.
 */
import type { Manager } from "../../src/kube/manager.ts";
import { eventually } from "./cluster.ts";

/**
 * From now on, counts each finished reconcile of `controller` per object (a reconcile already running
 * is not counted); the count of `namespace`/`name` so far.
 */
export function reconcileCounter(
  manager: Manager,
  controller: string,
): (namespace: string, name: string) => number {
  const spec = manager.controller(controller)?.spec;
  if (!spec) throw new Error(`the manager runs no controller ${controller}`);
  const counts = new Map<string, number>();
  const reconcile = spec.reconcile;
  spec.reconcile = async (key, context) => {
    try {
      return await reconcile(key, context);
    } finally {
      const id = `${key.namespace}/${key.name}`;
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
  };
  return (namespace, name) => counts.get(`${namespace}/${name}`) ?? 0;
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

/**
 * Waits until `controllers` have nothing queued or in flight, on two reads in a row with no reconcile
 * between them: whatever the operator was doing (a follow-up of its own status write included) is done.
 */
export async function operatorQuiet(manager: Manager, controllers: readonly string[]): Promise<void> {
  let previous: Activity | undefined;
  await eventually(
    `controllers ${controllers.join(", ")} quiet`,
    () => activityOf(manager, controllers),
    (now) => {
      const quiet = now.pending === 0 && previous?.pending === 0 && previous.reconciles === now.reconciles;
      previous = now;
      return quiet;
    },
  );
}
