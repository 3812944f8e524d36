import type { Cache } from "../kube/types.ts";

/**
 * The informer cache, as last seen by a pipelines reconcile. `watches` map functions receive only
 * the changed object, yet mapping a Provider (or Pipeline) to the resources that use it needs the
 * cache's indexes. Before any reconcile has run, every resource is queued anyway (its own add event),
 * so a map that finds no cache yet loses nothing.
 */
export const cacheHolder: { cache?: Cache } = {};
