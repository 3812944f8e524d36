/**
 * The one way a controller writes the status of the object it reconciles:
 *
 * 1. a status equal to the cached copy's is not sent (a steady state costs no request);
 * 2. with pacing, a change of detail alone (no headline field changed) is written at most once per
 *    interval per object, and the reconcile is told when to come back with the latest one;
 * 3. the write carries the cached copy's resourceVersion as a precondition, so a status computed from
 *    a copy the cache has not yet replaced (our own earlier write, or someone's spec change) is
 *    refused by the API server (409) instead of overwriting newer state: the reconcile comes back
 *    once the cache caught up;
 * 4. the transition's Event is recorded only when the write happened, so a lagging cache can never
 *    replay it.
 *
 * Controllers create one writer per controller instance (in their factory), never at module level:
 * two Managers in one process must not share pacing state.
 */
import { setNewest } from "../lib/bounded-map.ts";
import { sameJson } from "../lib/canonical.ts";
import { isConflict } from "./rest.ts";
import type { Client, EventRecorder, KubeObject } from "./types.ts";

/** The Event that reports a status transition. */
export interface StatusEvent {
  type: "Normal" | "Warning";
  reason: string;
  message: string;
}

export interface StatusWriteResult {
  /** The API server accepted the status (and the Event, if any, was recorded). */
  written: boolean;
  /** Over 0: the write was held back or refused as stale; reconcile again after this long. */
  requeueAfterMs: number;
  /**
   * The API server refused the write (409): the copy it was computed from is no longer current, and
   * neither is anything else decided from that copy.
   */
  stale?: true;
}

export interface StatusPacing<S> {
  intervalMs: number;
  /** Fields whose change is written at once (phase, counts, observedGeneration…). */
  headline: readonly (keyof S)[];
}

/** After a stale-copy conflict, how long to wait for the cache to hold the newer copy. */
export const staleCopyRetryMs = 50;

/** How many objects' last write time a paced writer remembers (oldest forgotten first). */
const rememberedObjects = 10_000;

/** How long to hold back a detail-only change whose object was last written at `lastWrittenAt` (pure). */
export function pacingHoldMs<S>(
  pacing: StatusPacing<S>,
  previous: Partial<S>,
  next: S,
  lastWrittenAt: number | undefined,
  now: number,
): number {
  if (!pacing.headline.every((field) => sameJson(previous[field], next[field]))) return 0;
  return lastWrittenAt === undefined ? 0 : Math.max(0, lastWrittenAt + pacing.intervalMs - now);
}

export class StatusWriter<S extends object> {
  readonly #pacing: StatusPacing<S> | undefined;
  readonly #writtenAt = new Map<string, number>();
  readonly #now: () => number;

  constructor(options: { pacing?: StatusPacing<S>; now?: () => number } = {}) {
    this.#pacing = options.pacing;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Writes `status` as the status of `object` (the cached copy it was computed from), recording
   * `event` (or each of several) only if the API server took the write; pass undefined for a write
   * that reports nothing.
   */
  async write<T extends KubeObject & { status?: Partial<S> }>(
    context: { client: Pick<Client, "applyStatus">; events: EventRecorder },
    object: T,
    status: S,
    event?: StatusEvent | readonly StatusEvent[],
  ): Promise<StatusWriteResult> {
    const previous = object.status ?? {};
    if (sameJson(status, previous)) return { written: false, requeueAfterMs: 0 };
    const id = object.metadata?.uid ?? `${object.metadata?.namespace}/${object.metadata?.name}`;
    if (this.#pacing) {
      const held = pacingHoldMs(this.#pacing, previous, status, this.#writtenAt.get(id), this.#now());
      if (held > 0) return { written: false, requeueAfterMs: held };
    }
    try {
      await context.client.applyStatus({ ...object, status }, { basedOn: object.metadata?.resourceVersion });
    } catch (error) {
      if (isConflict(error)) return { written: false, requeueAfterMs: staleCopyRetryMs, stale: true };
      throw error;
    }
    if (this.#pacing) setNewest(this.#writtenAt, id, this.#now(), rememberedObjects);
    for (const each of [event ?? []].flat())
      context.events.event(object, each.type, each.reason, each.message);
    return { written: true, requeueAfterMs: 0 };
  }
}

/** The smaller of two requeue delays, where 0 or undefined means "none". */
export function soonerRequeue(a: number | undefined, b: number | undefined): number | undefined {
  const delays = [a, b].filter((ms): ms is number => ms !== undefined && ms > 0);
  return delays.length ? Math.min(...delays) : undefined;
}
