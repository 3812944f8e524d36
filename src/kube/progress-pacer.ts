/**
 * Paces status writes that only refresh a rollout's progress detail. A controller writes a change of
 * a headline field (phase, counts, generation) at once; a change of detail alone ("0/3 pods updated"
 * → "1/3 pods updated") at most once per interval per object, and requeues to write the latest one
 * when the interval is over. A fast rollout then costs the API server two or three status writes
 * instead of one per step, and a slow one still shows its progress.
 */
import { setNewest } from "./bounded-map.ts";
import { sameJson } from "./same-json.ts";
import type { Client, KubeObject } from "./types.ts";

const rememberedObjects = 10_000;

export class ProgressPacer<S extends object> {
  readonly #intervalMs: number;
  readonly #headline: readonly (keyof S)[];
  readonly #writtenAt = new Map<string, number>();

  constructor(options: { intervalMs: number; headline: readonly (keyof S)[] }) {
    this.#intervalMs = options.intervalMs;
    this.#headline = options.headline;
  }

  /**
   * How long to hold back replacing `previous` with `next` as the status of the object `uid`: 0 when a
   * headline field changed or the object's last write is an interval old.
   */
  holdMs(uid: string, previous: Partial<S>, next: S, now: number): number {
    if (!this.#headline.every((field) => sameJson(previous[field], next[field]))) return 0;
    const last = this.#writtenAt.get(uid);
    return last === undefined ? 0 : Math.max(0, last + this.#intervalMs - now);
  }

  /** Records a status write of `uid` at `now`. */
  wrote(uid: string, now: number): void {
    setNewest(this.#writtenAt, uid, now, rememberedObjects);
  }

  /**
   * Writes `status` as `object`'s status unless it is what the object has or a detail-only change
   * held back. `written` says whether it was sent; `heldMs`, when over 0, when to try again.
   */
  async write<T extends KubeObject & { status?: Partial<S> }>(
    client: Pick<Client, "applyStatus">,
    object: T,
    status: S,
  ): Promise<{ written: boolean; heldMs: number }> {
    const previous = object.status ?? {};
    if (sameJson(status, previous)) return { written: false, heldMs: 0 };
    const uid = object.metadata?.uid ?? "";
    const heldMs = this.holdMs(uid, previous, status, Date.now());
    if (heldMs > 0) return { written: false, heldMs };
    const written = await client.applyStatus({ ...object, status });
    if (written) this.wrote(uid, Date.now());
    return { written: written !== undefined, heldMs: 0 };
  }
}
