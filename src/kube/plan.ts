/**
 * The one reconcile shape (docs/runtime.md): a controller observes (the cache, and what else it must
 * read), a pure plan turns that into commands, and `executePlan` carries them out in order. The
 * commands every area needs are here; an area's own I/O (a backend call, a registry check, a Job)
 * is a command of its own type, carried out by the `effect` the area passes, which answers the
 * commands that follow from its result (planned by a pure function of that result).
 *
 * Rules the executor keeps for every area:
 * - commands run in order, an effect's answer before the rest;
 * - a finalizer patch's returned copy is what a later status write is based on (else the write would
 *   carry the resourceVersion that patch replaced, and be refused);
 * - a status write refused as stale (the copy the plan was made from is no longer the API server's)
 *   ends the plan: everything after it was decided from that copy too; the reconcile comes back once
 *   the cache holds the newer one;
 * - of all requeue delays asked for (Requeue commands, a paced status write, the requeueIfWrittenMs of
 *   a status written), the soonest wins; 0 asks for none.
 */
import { isConflict } from "./rest.ts";
import { type StatusEvent, type StatusWriter, soonerRequeue } from "./status-writer.ts";
import type { KubeObject, ObjectKey, ReconcileContext, ReconcileResult, ResourceType } from "./types.ts";

export type KubeCommand<S> =
  /** Server-side apply of a child (force only for a child the plan has checked it controls). */
  | { type: "Apply"; object: KubeObject; force?: boolean }
  /** Deletes an object (a missing one is not an error); `uid`: only the object of that uid. */
  | {
      type: "Delete";
      resource: ResourceType;
      key: ObjectKey;
      uid?: string;
      propagationPolicy?: "Foreground" | "Background" | "Orphan";
      /** A 409 is not an error either: the uid precondition failed, another object took the name. */
      tolerateConflict?: boolean;
    }
  /** Adds or removes a finalizer of the reconciled object. */
  | { type: "AddFinalizer"; finalizer: string }
  | { type: "RemoveFinalizer"; finalizer: string }
  /**
   * Writes the reconciled object's status through the controller's StatusWriter; `events` are
   * recorded only if the API server took the write; `afterWrite` runs only then too, and so does
   * `requeueIfWrittenMs` count (to decide again on what the write recorded once the cache holds it).
   */
  | {
      type: "SetStatus";
      status: S;
      events?: readonly StatusEvent[];
      afterWrite?: () => Promise<void>;
      requeueIfWrittenMs?: number;
    }
  /** An Event about the reconciled object that goes with no status write (e.g. a child it deleted). */
  | { type: "RecordEvent"; event: StatusEvent }
  /** Deletes the reconciled object itself. */
  | { type: "DeleteSelf" }
  | { type: "Requeue"; afterMs: number };

/** A plan: the runtime's commands and the area's own (`E`, carried out by the area's effect). */
export type PlanCommand<S, E extends { type: string } = never> = KubeCommand<S> | E;

export interface PlanTarget<S extends object> {
  /** The kind of the reconciled object. */
  resource: ResourceType;
  /** The cached copy the plan was made from. */
  object: KubeObject & { status?: Partial<S> };
  writer: StatusWriter<S>;
  context: ReconcileContext;
}

/** Carries out an area's own command; answers the commands that follow from its result. */
export type Effect<S, E extends { type: string }> = (
  command: E,
  current: KubeObject,
) => Promise<readonly PlanCommand<S, E>[]>;

const kubeCommandTypes: ReadonlySet<string> = new Set<KubeCommand<unknown>["type"]>([
  "Apply",
  "Delete",
  "AddFinalizer",
  "RemoveFinalizer",
  "SetStatus",
  "RecordEvent",
  "DeleteSelf",
  "Requeue",
]);

function isKubeCommand<S, E extends { type: string }>(command: PlanCommand<S, E>): command is KubeCommand<S> {
  return kubeCommandTypes.has(command.type);
}

function keyOfObject(object: KubeObject): ObjectKey {
  return { namespace: object.metadata?.namespace ?? "", name: object.metadata?.name ?? "" };
}

export async function executePlan<S extends object, E extends { type: string } = never>(
  commands: readonly PlanCommand<S, E>[],
  target: PlanTarget<S>,
  effect?: Effect<S, E>,
): Promise<ReconcileResult | undefined> {
  const { resource, writer, context } = target;
  const key = keyOfObject(target.object);
  let current = target.object;
  let requeueAfterMs: number | undefined;
  const queue = [...commands];
  for (let command = queue.shift(); command; command = queue.shift()) {
    if (!isKubeCommand(command)) {
      if (!effect) throw new Error(`no effect carries out the command ${command.type}`);
      queue.unshift(...(await effect(command, current)));
      continue;
    }
    switch (command.type) {
      case "Apply":
        await context.client.apply(command.object, command.force ? { force: true } : undefined);
        break;
      case "Delete": {
        const { uid, propagationPolicy, tolerateConflict } = command;
        await context.client
          .delete(command.resource, command.key, {
            ...(uid ? { uid } : {}),
            ...(propagationPolicy ? { propagationPolicy } : {}),
          })
          .catch((error: unknown) => {
            if (!tolerateConflict || !isConflict(error)) throw error;
          });
        break;
      }
      case "AddFinalizer": {
        const patched = await context.client.addFinalizer(resource, key, command.finalizer);
        if (patched) current = { ...current, metadata: patched.metadata };
        break;
      }
      case "RemoveFinalizer": {
        const patched = await context.client.removeFinalizer(resource, key, command.finalizer);
        if (patched) current = { ...current, metadata: patched.metadata };
        break;
      }
      case "SetStatus": {
        const written = await writer.write(context, current, command.status, command.events);
        if (written.stale)
          return { requeueAfterMs: soonerRequeue(requeueAfterMs, written.requeueAfterMs) ?? 0 };
        requeueAfterMs = soonerRequeue(requeueAfterMs, written.requeueAfterMs);
        if (!written.written) break;
        requeueAfterMs = soonerRequeue(requeueAfterMs, command.requeueIfWrittenMs);
        await command.afterWrite?.();
        break;
      }
      case "RecordEvent": {
        const { type, reason, message } = command.event;
        context.events.event(current, type, reason, message);
        break;
      }
      case "DeleteSelf":
        await context.client.delete(resource, key);
        break;
      case "Requeue":
        requeueAfterMs = soonerRequeue(requeueAfterMs, command.afterMs);
        break;
    }
  }
  return requeueAfterMs === undefined ? undefined : { requeueAfterMs };
}
