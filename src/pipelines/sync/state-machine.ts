/**
 * The one state machine of every pipeline resource (Pipeline, Experiment, Run, RunSchedule): a pure
 * decision from the resource's recorded status and what is desired, to the next action; and a pure
 * settlement from the action's outcome to the next status. plan.ts turns them into commands, which
 * src/pipelines/sync/reconciler.ts executes.
 */
import type { SyncStateName } from "../../apis/pipelines/common.ts";
import { exponentialDelay } from "../../lib/backoff.ts";
import type { Blocker, ProviderBlocker } from "../blockers.ts";

export type SyncState = SyncStateName;

/** What the status says the backend has. */
export interface Recorded {
  state?: SyncState;
  /** `namespace/name` of the Provider the backend object lives in. */
  provider?: string;
  id?: string;
  version?: string;
  providerVersion?: string;
  failedAttempts?: number;
  /** Epoch ms before which a Failed resource is not retried. */
  retryAt?: number;
  observedGeneration?: number;
}

export interface SyncInput {
  generation: number;
  deleting: boolean;
  finalizerPresent: boolean;
  /** The backend keeps state that owner references cannot clean up (e.g. in another namespace). */
  needsFinalizer: boolean;
  /** `namespace/name` of the Provider the spec names. */
  provider: string;
  /** Why the named Provider cannot be used (missing, not allowed, not ready); undefined when it can. */
  providerProblem?: ProviderBlocker;
  /** Version of the spec and of the Provider's configuration, as they are now. */
  version: string;
  providerVersion: string;
  recorded: Recorded;
  now: number;
}

export type Action =
  | { type: "none" }
  | { type: "addFinalizer" }
  | { type: "removeFinalizer" }
  | { type: "blocked"; blocker: Blocker }
  | { type: "wait"; afterMs: number }
  | { type: "create"; state: "Creating" }
  | { type: "update"; state: "Updating"; id: string }
  /** Delete from the old Provider's backend, then create in the new one. */
  | { type: "move"; state: "Updating"; from: { provider: string; id: string } }
  | { type: "delete"; state: "Deleting"; provider: string; id: string };

export const backoff = { baseMs: 5_000, maxMs: 300_000 };

/** Delay before retry number `attempt` (1-based): doubling from 5 s, bounded at 5 min. */
export function retryDelayMs(attempt: number): number {
  return exponentialDelay(backoff, Math.max(0, attempt - 1));
}

function backingOff(input: SyncInput): number | undefined {
  const { recorded } = input;
  if (recorded.state !== "Failed" || recorded.retryAt === undefined) return undefined;
  if (recorded.observedGeneration !== input.generation && !input.deleting) return undefined; // spec changed
  return recorded.retryAt > input.now ? recorded.retryAt - input.now : undefined;
}

/** The backend has what is desired: a Provider that is not Ready has nothing to do for it. */
function upToDate(input: SyncInput): boolean {
  const { recorded } = input;
  return (
    recorded.state === "Succeeded" &&
    recorded.id !== undefined &&
    recorded.provider === input.provider &&
    recorded.version === input.version &&
    recorded.providerVersion === input.providerVersion
  );
}

export function decide(input: SyncInput): Action {
  const { recorded } = input;
  const wait = backingOff(input);
  if (input.deleting) {
    if (!input.finalizerPresent) return { type: "none" };
    if (!recorded.id || !recorded.provider || recorded.state === "Deleted")
      return { type: "removeFinalizer" };
    if (wait !== undefined) return { type: "wait", afterMs: wait };
    return { type: "delete", state: "Deleting", provider: recorded.provider, id: recorded.id };
  }
  if (input.providerProblem && !(input.providerProblem.reason === "ProviderNotReady" && upToDate(input)))
    return { type: "blocked", blocker: input.providerProblem };
  if (input.needsFinalizer && !input.finalizerPresent) return { type: "addFinalizer" };
  if (wait !== undefined) return { type: "wait", afterMs: wait };
  if (!recorded.id) return { type: "create", state: "Creating" };
  if (recorded.provider && recorded.provider !== input.provider) {
    return { type: "move", state: "Updating", from: { provider: recorded.provider, id: recorded.id } };
  }
  const changed = recorded.version !== input.version || recorded.providerVersion !== input.providerVersion;
  if (changed || recorded.state !== "Succeeded")
    return { type: "update", state: "Updating", id: recorded.id };
  return { type: "none" };
}

export type Outcome = { ok: true; id?: string } | { ok: false; error: string };

/** The status after running `action` with `outcome`; the message of a failure says when it is retried. */
export function settle(
  input: SyncInput,
  action: Extract<Action, { state: string }>,
  outcome: Outcome,
): { recorded: Recorded; message: string } {
  const base: Recorded = { ...input.recorded, observedGeneration: input.generation };
  if (outcome.ok) {
    if (action.type === "delete") {
      return {
        recorded: { ...base, state: "Deleted", failedAttempts: 0, retryAt: undefined },
        message: `deleted ${action.id} from provider ${action.provider}`,
      };
    }
    const id = outcome.id ?? (action.type === "update" ? action.id : undefined);
    const verb = action.type === "create" ? "created in" : action.type === "move" ? "moved to" : "updated in";
    return {
      recorded: {
        state: "Succeeded",
        provider: input.provider,
        id,
        version: input.version,
        providerVersion: input.providerVersion,
        failedAttempts: 0,
        retryAt: undefined,
        observedGeneration: input.generation,
      },
      message: `${verb} provider ${input.provider} as ${id} (version ${input.version})`,
    };
  }
  const attempts =
    input.recorded.state === "Failed" && input.recorded.observedGeneration === input.generation
      ? (input.recorded.failedAttempts ?? 0) + 1
      : 1;
  const delay = retryDelayMs(attempts);
  const verb = action.type === "delete" ? "delete" : action.type === "create" ? "create" : "update";
  return {
    recorded: { ...base, state: "Failed", failedAttempts: attempts, retryAt: input.now + delay },
    message: `${verb} failed (attempt ${attempts}): ${outcome.error}; retrying in ${Math.round(delay / 1000)}s`,
  };
}
