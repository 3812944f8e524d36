/**
 * The decision of one reconcile of a synchronized kind, as commands: from the resource and what was
 * observed (its Provider, the definition the backend would get) to what to do, in order. A command
 * whose result matters (a backend call, a completion poll) carries in `next` the pure function that decides
 * the next commands from that result. reconciler.ts has the runtime's executor (src/kube/plan.ts)
 * carry them out: a status write refused as stale ends the plan, since what follows it (removing the
 * finalizer, deleting an expired Run) was decided from the same stale copy; it is planned again from
 * the fresh one 50 ms later.
 */
import type { PlanCommand } from "../../kube/plan.ts";
import type { StatusEvent } from "../../kube/status-writer.ts";
import type { ProviderConfig, RunCompletion, RunProgress } from "../backend.ts";
import type { Blocker, Buildable } from "../blockers.ts";
import { finalizer } from "../types.ts";
import type { Follow, Settled, SyncedKind, SyncedResource } from "./kind.ts";
import { type Action, decide, type Outcome, type Recorded, type SyncInput, settle } from "./state-machine.ts";
import { type SharedStatus, statusOf } from "./status.ts";

/** What the backend is asked to do; provider keys are `namespace/name`. */
export type BackendOperation<D> =
  | { type: "create"; provider: ProviderConfig; definition: D }
  | { type: "update"; provider: ProviderConfig; id: string; definition: D }
  | { type: "move"; from: { provider: string; id: string }; provider: ProviderConfig; definition: D }
  | { type: "delete"; provider: string; id: string };

/** The area's own commands, carried out by reconciler.ts; `next` plans what follows from the result. */
export type BackendCommand<D> =
  | {
      type: "CallBackend";
      operation: BackendOperation<D>;
      /**
       * What this create/update/move submits (generation, Provider, versions): made again from a copy
       * the cache has not refreshed (its status write refused), it gets the id it got the first time
       * instead of a second backend object — remote backends (kfp, vertex) do not create by name.
       */
      submission?: string;
      next: (outcome: Outcome) => SyncCommand<D>[];
    }
  | {
      type: "PollCompletion";
      poll: Omit<Extract<Follow, { type: "poll" }>, "next" | "type">;
      next: (completion: RunCompletion | RunProgress | undefined) => SyncCommand<D>[];
    };

/**
 * The runtime's commands (src/kube/plan.ts: finalizers, the status with its Event, deleting the
 * resource itself, requeue) and the backend's.
 */
export type SyncCommand<D> = PlanCommand<SharedStatus, BackendCommand<D>>;

export interface SyncObservation<D> {
  input: SyncInput;
  previous: SharedStatus | undefined;
  /** The named Provider's configuration, when it exists. */
  provider: ProviderConfig | undefined;
  /** What the backend would get; undefined when there is no Provider or the resource is being deleted. */
  build: Buildable<D> | undefined;
}

/** A definition blocker is polled: what it waits for (a Pipeline, a run's artifact) is not watched by every kind. */
export const definitionBlockerPollMs = 30_000;

/** The status this reconcile settles on, the Event of its transition, and when to come back. */
interface Step {
  recorded: Recorded;
  message: string;
  transition?: StatusEvent;
  requeueAfterMs?: number;
}

type Hooks<R extends SyncedResource, D> = Pick<SyncedKind<R, D>, "follow" | "normalTransitionEvents">;

export function planSync<R extends SyncedResource, D>(
  kind: Hooks<R, D>,
  resource: R,
  observation: SyncObservation<D>,
): SyncCommand<D>[] {
  const { input } = observation;
  const first = decide(input);
  if (first.type === "addFinalizer") {
    const withFinalizer = { ...observation, input: { ...input, finalizerPresent: true } };
    return [{ type: "AddFinalizer", finalizer }, ...planSync(kind, resource, withFinalizer)];
  }
  if (first.type === "removeFinalizer") return [{ type: "RemoveFinalizer", finalizer }];
  if (input.deleting && first.type === "none") return [];
  const action = blockedByDefinition(first, observation.build);
  const close = (step: Step) => finish(kind, resource, observation, step);
  const message = synchronizedMessage(observation.previous);
  if (action.type === "blocked") return close(blockedStep(observation, action.blocker));
  if (action.type === "wait")
    return close({ recorded: input.recorded, message, requeueAfterMs: action.afterMs });
  if (action.type === "none") {
    return close({ recorded: { ...input.recorded, observedGeneration: input.generation }, message });
  }
  if (!("state" in action)) return [];
  const next = (outcome: Outcome) => close(settledStep(input, action, outcome));
  const operation = operationOf(action, observation);
  if (!operation) return next({ ok: false, error: "the Provider is not available" });
  if (operation.type === "delete") return [{ type: "CallBackend", operation, next }];
  const submission = [input.generation, input.provider, input.version, input.providerVersion].join(" ");
  return [{ type: "CallBackend", operation, submission, next }];
}

/** A create, update or move whose definition cannot be built yet is blocked instead. */
function blockedByDefinition<D>(action: Action, build: Buildable<D> | undefined): Action {
  const builds = action.type === "create" || action.type === "update" || action.type === "move";
  return builds && build?.type === "blocked" ? { type: "blocked", blocker: build.blocker } : action;
}

function operationOf<D>(
  action: Extract<Action, { state: string }>,
  observation: SyncObservation<D>,
): BackendOperation<D> | undefined {
  if (action.type === "delete") return { type: "delete", provider: action.provider, id: action.id };
  const { provider, build } = observation;
  if (!provider || build?.type !== "ready") return undefined;
  const definition = build.value;
  if (action.type === "create") return { type: "create", provider, definition };
  if (action.type === "update") return { type: "update", provider, id: action.id, definition };
  return { type: "move", from: action.from, provider, definition };
}

const synchronizedMessage = (status: SharedStatus | undefined) =>
  status?.conditions?.find((c) => c.type === "Synchronized")?.message ?? "";

/** Blockers that are a dependency on its way (watched or polled), not a mistake in the resource. */
const dependencyOnItsWay: ReadonlySet<Blocker["reason"]> = new Set([
  "ProviderNotReady",
  "PipelineNotSynchronized",
]);

function blockedStep<D>(observation: SyncObservation<D>, blocker: Blocker): Step {
  const { input, previous } = observation;
  // never synchronized and waiting for its Provider or Pipeline (applied with it): no state yet
  // (Synchronized=Unknown, Pending) and a Normal Event, not Failed
  if (dependencyOnItsWay.has(blocker.reason) && input.recorded.state === undefined) {
    return {
      recorded: { ...input.recorded, retryAt: undefined, observedGeneration: input.generation },
      message: blocker.message,
      ...(input.providerProblem ? {} : { requeueAfterMs: definitionBlockerPollMs }),
      ...(synchronizedMessage(previous) !== blocker.message
        ? { transition: { type: "Normal", reason: "Waiting", message: blocker.message } }
        : {}),
    };
  }
  const changed = previous?.state !== "Failed" || synchronizedMessage(previous) !== blocker.message;
  return {
    recorded: {
      ...input.recorded,
      state: "Failed",
      retryAt: undefined,
      observedGeneration: input.generation,
    },
    message: blocker.message,
    // a provider problem is re-examined when the Provider changes (a watch)
    ...(input.providerProblem ? {} : { requeueAfterMs: definitionBlockerPollMs }),
    ...(changed ? { transition: { type: "Warning", reason: "Failed", message: blocker.message } } : {}),
  };
}

function settledStep(input: SyncInput, action: Extract<Action, { state: string }>, outcome: Outcome): Step {
  const { recorded, message } = settle(input, action, outcome);
  const failed = recorded.state === "Failed";
  return {
    recorded,
    message,
    transition: {
      type: failed ? "Warning" : "Normal",
      reason: recorded.state ?? "",
      message: `${action.state} → ${recorded.state}: ${message}`,
    },
    ...(failed && recorded.retryAt !== undefined ? { requeueAfterMs: recorded.retryAt - input.now } : {}),
  };
}

/** Status (with the kind's own fields), the transition's Event with it, then what follows the write. */
function finish<R extends SyncedResource, D>(
  kind: Hooks<R, D>,
  resource: R,
  observation: SyncObservation<D>,
  step: Step,
): SyncCommand<D>[] {
  const { input, previous, provider } = observation;
  const shared = statusOf(
    step.recorded,
    previous,
    { message: step.message },
    input.providerProblem,
    new Date(input.now),
  );
  const quiet = step.transition?.type === "Normal" && kind.normalTransitionEvents === false;
  const transition = quiet ? undefined : step.transition;
  const written = (settled: Settled): SyncCommand<D>[] => {
    const event = transition ?? settled.event;
    return [
      { type: "SetStatus", status: { ...shared, ...settled.status }, ...(event ? { events: [event] } : {}) },
      ...(step.recorded.state === "Deleted" ? [{ type: "RemoveFinalizer" as const, finalizer }] : []),
      ...(settled.expired ? [{ type: "DeleteSelf" as const }] : []),
      ...requeue<D>(step.requeueAfterMs, settled.requeueAfterMs),
    ];
  };
  if (input.deleting || step.recorded.state !== "Succeeded" || !kind.follow)
    return written({ type: "settled" });
  const definition = observation.build?.type === "ready" ? observation.build.value : undefined;
  const at = { now: input.now, justSynchronized: step.transition !== undefined, provider, definition };
  return followed(kind.follow(resource, shared, at), written);
}

function followed<D>(follow: Follow, written: (settled: Settled) => SyncCommand<D>[]): SyncCommand<D>[] {
  if (follow.type === "settled") return written(follow);
  const { next, type: _, ...poll } = follow;
  return [{ type: "PollCompletion", poll, next: (completion) => written(next(completion)) }];
}

function requeue<D>(...delays: (number | undefined)[]): SyncCommand<D>[] {
  const due = delays.filter((ms): ms is number => ms !== undefined);
  return due.length ? [{ type: "Requeue", afterMs: Math.max(0, Math.min(...due)) }] : [];
}
