/**
 * Build slots granted to runs the operator's view does not show yet. A build that takes a slot
 * writes its Building status, then creates its Job, and the operator sees that Job only once its
 * informer does: a build deciding in between would count one slot too few and start beyond
 * `maxConcurrentBuilds`. Kubernetes' own controllers keep "expectations" for the same reason.
 *
 * A reservation is made in the same synchronous step as the decision that took the slot, so two
 * builds deciding side by side cannot both take the last one. It ends when the run shows among the
 * slot holders, when its start did not happen (release), or after `ttlMs`: a Job the informer has
 * still not shown by then is counted from the cache alone again.
 */
export class SlotReservations {
  readonly #reserved = new Map<string, { namespace: string; until: number }>();
  readonly #ttlMs: number;

  constructor(ttlMs = 30_000) {
    this.#ttlMs = ttlMs;
  }

  /** `run`: the backend's name for the run (BuildBackend.runOf); `namespace`: whose slot it takes. */
  reserve(run: string, namespace: string, now = Date.now()): void {
    this.#reserved.set(run, { namespace, until: now + this.#ttlMs });
  }

  release(run: string): void {
    this.#reserved.delete(run);
  }

  /**
   * The namespace of each reservation whose run is not among `visible` (the runs that hold a slot
   * as the backend sees them), `except` aside; those that are visible or expired end here.
   */
  pending(visible: ReadonlySet<string>, except: string, now = Date.now()): string[] {
    const namespaces: string[] = [];
    for (const [run, { namespace, until }] of this.#reserved) {
      if (visible.has(run) || until <= now) this.#reserved.delete(run);
      else if (run !== except) namespaces.push(namespace);
    }
    return namespaces;
  }
}
