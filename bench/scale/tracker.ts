/**
 * The bench's view of every object's status, from one cluster-wide watch per kind (no polling lists):
 * how many objects there are and how many have a current status, and when a given object's first
 * status arrived.
 */
import { resourcePath } from "../../src/kube/keys.ts";
import type { RestClient, WatchEvent } from "../../src/kube/rest.ts";
import type { ResourceType } from "../../src/kube/types.ts";

interface Observed {
  metadata?: { namespace?: string; name?: string; generation?: number; resourceVersion?: string };
  status?: {
    observedGeneration?: number;
    state?: string;
    phase?: string;
    conditions?: { type: string; status: string }[];
  };
}

/** A status that is there at all: the first status write of an object. */
export const hasStatus = (object: Observed) => Object.keys(object.status ?? {}).length > 0;

/**
 * A status written for the object's current generation that is not on its way anywhere: Slipway's
 * (with conditions) of a pipelines resource synchronized (state Succeeded: one still waiting has no
 * state), of an ImageBuild Succeeded, of a Provider Ready; the peer's, observedGeneration alone.
 */
export function isCurrent(object: Observed): boolean {
  const status = object.status;
  if (!status || status.observedGeneration !== object.metadata?.generation) return false;
  if (status.state !== undefined || status.phase !== undefined)
    return status.state === "Succeeded" || status.phase === "Succeeded";
  if (status.conditions === undefined) return true;
  return status.conditions.some((condition) => condition.type === "Ready" && condition.status === "True");
}

const keyOf = (type: ResourceType, object: Observed) =>
  `${type.plural}/${object.metadata?.namespace}/${object.metadata?.name}`;

export class StatusTracker {
  readonly #current = new Map<string, boolean>();
  readonly #waiting = new Map<string, (at: number) => void>();
  readonly #abort = new AbortController();
  readonly #watches: Promise<void>[] = [];

  constructor(rest: RestClient, types: ResourceType[]) {
    for (const type of types) this.#watches.push(this.#follow(rest, type));
  }

  /** Objects seen, and how many of them have a current status. */
  counts(): { objects: number; current: number } {
    let current = 0;
    for (const value of this.#current.values()) if (value) current++;
    return { objects: this.#current.size, current };
  }

  /** Resolves with performance.now() when the object's first status is seen; register before creating it. */
  firstStatus(type: ResourceType, namespace: string, name: string): Promise<number> {
    return new Promise((resolve) => this.#waiting.set(`${type.plural}/${namespace}/${name}`, resolve));
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await Promise.allSettled(this.#watches);
  }

  #seen(type: ResourceType, event: WatchEvent) {
    const object = event.object as Observed;
    const key = keyOf(type, object);
    if (event.type === "DELETED") {
      this.#current.delete(key);
      return;
    }
    this.#current.set(key, isCurrent(object));
    const waiter = this.#waiting.get(key);
    if (waiter && hasStatus(object)) {
      this.#waiting.delete(key);
      waiter(performance.now());
    }
  }

  /** Watches `type` in every namespace until stopped; a watch that ends resumes where it was (or afresh after 410). */
  async #follow(rest: RestClient, type: ResourceType) {
    let resourceVersion: string | undefined;
    while (!this.#abort.signal.aborted) {
      try {
        await rest.watch(
          resourcePath(type),
          { allowWatchBookmarks: true, ...(resourceVersion ? { resourceVersion } : {}) },
          (event) => {
            const version = (event.object as Observed).metadata?.resourceVersion;
            if (event.type === "ERROR") {
              resourceVersion = undefined;
              return;
            }
            if (version) resourceVersion = version;
            if (event.type !== "BOOKMARK") this.#seen(type, event);
          },
          this.#abort.signal,
        );
      } catch (error) {
        if (this.#abort.signal.aborted) return;
        if ((error as { status?: number }).status === 410) resourceVersion = undefined;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }
}
