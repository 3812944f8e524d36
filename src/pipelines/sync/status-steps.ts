/**
 * Steps of a synchronized kind's reconcile that add to its one status write: event delivery (Run,
 * RunSchedule) and scheduled-run tracking (RunSchedule). Each does its I/O first and answers what it
 * adds; the sync reconciler merges every step's part into the status its plan writes (pure:
 * `withStepStatus`, `stepsIntoWrite`), records their Events with the write, and runs each `afterWrite`
 * once the write has landed (or there was nothing new to write).
 */
import { type ConditionInput, setCondition } from "../../kube/conditions.ts";
import type { PlanCommand } from "../../kube/plan.ts";
import { type StatusEvent, staleCopyRetryMs } from "../../kube/status-writer.ts";
import type { ReconcileContext } from "../../kube/types.ts";
import type { SyncedResource } from "./kind.ts";
import type { BackendCommand, SyncCommand } from "./plan.ts";
import type { SharedStatus } from "./status.ts";

export interface StepStatus {
  /** Fields this step sets, over what the plan writes (e.g. `events`). */
  status?: Partial<SharedStatus>;
  condition?: ConditionInput;
  /** Recorded with the write, only if the API server takes it. */
  event?: StatusEvent;
  requeueAfterMs?: number;
  /**
   * After the write landed or wrote nothing new, never after a refused (stale) one: work that must
   * follow what the status records (e.g. marking runs recorded in the backend).
   */
  afterWrite?: () => Promise<void>;
}

/** One step: given the cached resource and the status as the steps before it left it. */
export type StatusStep<R extends SyncedResource> = (
  resource: R,
  status: SharedStatus,
  context: ReconcileContext,
) => Promise<StepStatus | undefined>;

/** `status` with what the steps set (in order; a later step's fields win). */
export function withStepStatus(
  status: SharedStatus,
  parts: readonly StepStatus[],
  generation: number | undefined,
): SharedStatus {
  let merged = status;
  for (const part of parts) {
    if (part.status) merged = { ...merged, ...part.status };
    if (part.condition)
      merged = { ...merged, conditions: setCondition(merged.conditions, part.condition, generation) };
  }
  return merged;
}

/** Runs the steps in order, each on the status the ones before it left. */
export async function runStatusSteps<R extends SyncedResource>(
  steps: readonly StatusStep<R>[],
  resource: R,
  context: ReconcileContext,
): Promise<StepStatus[]> {
  const parts: StepStatus[] = [];
  for (const step of steps) {
    const status = withStepStatus(resource.status ?? {}, parts, resource.metadata.generation);
    const part = await step(resource, status, context);
    if (part) parts.push(part);
  }
  return parts;
}

/** A step's work after the status write, as a command of the plan (the reconciler's effect runs it). */
export interface AfterStepWrite {
  type: "AfterStepWrite";
  run: () => Promise<void>;
}

export type SteppedCommand<D> = PlanCommand<SharedStatus, BackendCommand<D> | AfterStepWrite>;

/**
 * Puts what the steps set into a plan's status write: the first SetStatus (a plan writes once) gets
 * their fields and Events, then their work after the write and their requeues follow it, so they
 * happen only if that write was not refused as stale (the executor ends the plan there). A write that
 * recorded what a step set comes back in 50 ms to decide on it once the cache holds it (e.g. a Run's
 * expiry waits for its events' delivery). One per reconcile: given every command list it plans,
 * continuations' included, in the order they run.
 */
export function stepsIntoWrite<D>(
  parts: readonly StepStatus[],
  generation: number | undefined,
): (commands: readonly SyncCommand<D>[]) => SteppedCommand<D>[] {
  let pending = parts.length > 0;
  return (commands) =>
    commands.flatMap((command): SteppedCommand<D>[] => {
      if (command.type !== "SetStatus" || !pending) return [command];
      pending = false;
      const events = [
        ...(command.events ?? []),
        ...parts.flatMap((part) => (part.event ? [part.event] : [])),
      ];
      return [
        {
          ...command,
          status: withStepStatus(command.status, parts, generation),
          ...(events.length ? { events } : {}),
          ...(parts.some((part) => part.status) ? { requeueIfWrittenMs: staleCopyRetryMs } : {}),
        },
        ...parts.flatMap((part) =>
          part.afterWrite ? [{ type: "AfterStepWrite" as const, run: part.afterWrite }] : [],
        ),
        ...parts.flatMap((part) =>
          part.requeueAfterMs ? [{ type: "Requeue" as const, afterMs: part.requeueAfterMs }] : [],
        ),
      ];
    });
}
