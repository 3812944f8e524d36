/** What differs between the synchronized kinds (Pipeline, Experiment, Run, RunSchedule): pure functions. */
import type { StatusEvent } from "../../kube/status-writer.ts";
import type { Cache, KubeObject, ResourceType } from "../../kube/types.ts";
import type {
  Backend,
  BackendObjects,
  BackendPlugin,
  Owner,
  ProviderConfig,
  RunCompletion,
  RunProgress,
  RunWanted,
} from "../backend.ts";
import type { Buildable } from "../blockers.ts";
import type { SharedStatus } from "./status.ts";

export interface SyncedResource extends KubeObject {
  metadata: NonNullable<KubeObject["metadata"]>;
  spec: { provider: string };
  status?: SharedStatus;
}

/** A kind's own status fields once it is synchronized, and whether to come back or delete it. */
export interface Settled {
  type: "settled";
  status?: Record<string, unknown>;
  event?: StatusEvent;
  requeueAfterMs?: number;
  expired?: boolean;
}

/** Ask the backend how the run `id` ended; `next` decides from the answer (Running or undefined: still running). */
export interface PollCompletion {
  type: "poll";
  provider: string;
  id: string;
  wanted: RunWanted;
  next: (completion: RunCompletion | RunProgress | undefined) => Settled;
}

export type Follow = Settled | PollCompletion;

export interface FollowAt<D = unknown> {
  now: number;
  /** What the backend gets for the resource now, when it can be built (a Run's: its pipeline's steps). */
  definition?: D;
  /** This reconcile synchronized it (a transition): a run just submitted has not finished. */
  justSynchronized: boolean;
  provider: ProviderConfig | undefined;
}

export interface SyncedKind<R extends SyncedResource, D> {
  type: ResourceType;
  /** The key of BackendPlugin.writes that lists what backends write for this kind (its RBAC). */
  role: keyof BackendPlugin["writes"];
  objects(backend: Backend): BackendObjects<D>;
  /** The version of what the backend should have (a hash of the spec and what it depends on). */
  version(resource: R, cache: Cache): string;
  /** What the backend gets, or why it cannot be built yet. */
  definition(resource: R, owner: Owner, cache: Cache, provider: ProviderConfig): Buildable<D>;
  /**
   * false: a transition that did not fail records no Event (its status's Synchronized condition
   * says the same); failures still record their Warning. Default true.
   */
  normalTransitionEvents?: boolean;
  /** After the resource is synchronized (state Succeeded): its own status fields (e.g. a Run's completion). */
  follow?(resource: R, status: SharedStatus, at: FollowAt<D>): Follow;
}
