import type { Logger } from "pino";
import { abortableSleep } from "../lib/abortable-sleep.ts";
import { exponentialDelay, withJitter } from "../lib/backoff.ts";
import { keyString, resourcePath, typeId } from "./keys.ts";
import { controllerOf } from "./owners.ts";
import { ApiError, isNotFound, type RestClient, type WatchEvent } from "./rest.ts";
import type { KubeObject, ResourceType } from "./types.ts";

export interface InformerHandlers {
  add?(object: KubeObject): void;
  update?(oldObject: KubeObject, newObject: KubeObject): void;
  delete?(object: KubeObject): void;
}

export type IndexFunction = (object: KubeObject) => string[];

/** Built-in index: the uid of an object's controlling owner. */
export const controllerIndex = "controller";
const namespaceIndex = "namespace";

export interface InformerStats {
  lists: number;
  /** List requests (a list of many objects takes several pages). */
  listPages: number;
  /** Lists forced by a 410 Gone (watch too old), counted in `lists` too. */
  relistsAfterGone: number;
  watches: number;
  watchErrors: number;
}

export interface InformerOptions {
  /** Only these namespaces (namespaced types), one list+watch each; default all, with one cluster-wide list+watch. */
  namespaces?: string[];
  log: Logger;
  pageSize?: number;
  /** Reconnect backoff bounds. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /**
   * Told of every failed list or watch (a 410 Gone is a relist, not a failure) with how many failed
   * in a row; a caller that should give up (e.g. a user who lost access) calls stop().
   */
  onError?: (error: unknown, failuresInARow: number) => void;
}

/** One list+watch of an informer: cluster-wide (no namespace) or of one namespace. */
interface Stream {
  namespace?: string;
  resourceVersion: string;
  synced: boolean;
  /** Its last list or watch was answered 404: the API server does not serve the type (a CRD not installed). */
  unserved: boolean;
}

/** Where an informer stands: synced, listing (or retrying), or waiting for the API server to serve its type. */
export type InformerState = "synced" | "syncing" | "unserved";

/**
 * A list+watch cache of one resource type: lists (paged), then watches from the list's
 * resourceVersion with bookmarks; relists on 410 Gone (HTTP status or ERROR event); reconnects
 * with capped exponential backoff on any other failure. It never stops until stop() is called. A 404
 * (the type not served: its CRD not installed) is `state` "unserved", warned once, and retried with
 * the same backoff, so the informer syncs once the CRD is installed.
 * Given namespaces, it runs one such stream per namespace into one store, synced once all are.
 */
export class Informer {
  readonly type: ResourceType;
  readonly stats: InformerStats = { lists: 0, listPages: 0, relistsAfterGone: 0, watches: 0, watchErrors: 0 };
  readonly #rest: RestClient;
  readonly #options: InformerOptions;
  readonly #store = new Map<string, KubeObject>();
  readonly #indexers = new Map<string, IndexFunction>();
  readonly #indices = new Map<string, Map<string, Set<string>>>();
  readonly #handlers: InformerHandlers[] = [];
  readonly #abort = new AbortController();
  readonly #streams: Stream[];
  #synced = false;
  #syncWaiters: { resolve: () => void; orUnserved: boolean }[] = [];
  #running: Promise<void> | undefined;

  constructor(type: ResourceType, rest: RestClient, options: InformerOptions) {
    this.type = type;
    this.#rest = rest;
    this.#options = options;
    const scopes = type.namespaced && options.namespaces ? [...new Set(options.namespaces)] : [undefined];
    if (scopes.length === 0) throw new Error(`informer of ${type.plural}: namespaces is empty`);
    this.#streams = scopes.map((namespace) => ({
      namespace,
      resourceVersion: "",
      synced: false,
      unserved: false,
    }));
    this.addIndex(controllerIndex, (object) => {
      const uid = controllerOf(object)?.uid;
      return uid ? [uid] : [];
    });
    if (type.namespaced) {
      this.addIndex(namespaceIndex, (object) =>
        object.metadata?.namespace ? [object.metadata.namespace] : [],
      );
    }
  }

  get synced(): boolean {
    return this.#synced;
  }

  get size(): number {
    return this.#store.size;
  }

  /** Synced; or not yet, and whether that is because the API server does not serve the type (404). */
  get state(): InformerState {
    if (this.#synced) return "synced";
    return this.#streams.some((stream) => stream.unserved) ? "unserved" : "syncing";
  }

  addHandlers(handlers: InformerHandlers): void {
    this.#handlers.push(handlers);
    // A handler added after the first sync sees the objects already known, like client-go.
    if (this.#synced) for (const object of this.#store.values()) handlers.add?.(object);
  }

  addIndex(name: string, values: IndexFunction): void {
    const existing = this.#indexers.get(name);
    if (existing) {
      if (existing !== values) throw new Error(`index ${name} on ${this.type.plural} is already defined`);
      return;
    }
    this.#indexers.set(name, values);
    const index = new Map<string, Set<string>>();
    this.#indices.set(name, index);
    for (const [key, object] of this.#store) this.#indexObject(name, values, index, key, object, true);
  }

  get(key: string): KubeObject | undefined {
    return this.#store.get(key);
  }

  list(namespace?: string): KubeObject[] {
    if (namespace === undefined || !this.type.namespaced) return [...this.#store.values()];
    return this.byIndex(namespaceIndex, namespace);
  }

  byIndex(name: string, value: string): KubeObject[] {
    const index = this.#indices.get(name);
    if (!index) throw new Error(`no index ${name} on ${this.type.plural}`);
    const keys = index.get(value);
    if (!keys) return [];
    const objects: KubeObject[] = [];
    for (const key of keys) {
      const object = this.#store.get(key);
      if (object) objects.push(object);
    }
    return objects;
  }

  start(): void {
    this.#running ??= Promise.all(this.#streams.map((stream) => this.#run(stream))).then(() => {});
  }

  /**
   * Resolves once synced; with `orUnserved`, also once the API server answered that it does not
   * serve the type (an optional kind: its informer keeps retrying and syncs when it is served).
   */
  waitForSync(signal?: AbortSignal, options: { orUnserved?: boolean } = {}): Promise<void> {
    const orUnserved = options.orUnserved ?? false;
    if (this.#synced || (orUnserved && this.state === "unserved")) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(new Error(`cache of ${this.type.plural} not synced`));
    return new Promise((resolve, reject) => {
      this.#syncWaiters.push({ resolve, orUnserved });
      signal?.addEventListener("abort", () => reject(new Error(`cache of ${this.type.plural} not synced`)), {
        once: true,
      });
    });
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#running;
  }

  async #run(stream: Stream): Promise<void> {
    const signal = this.#abort.signal;
    const { minBackoffMs = 200, maxBackoffMs = 10_000 } = this.#options;
    const backoffBounds = { baseMs: minBackoffMs, maxMs: maxBackoffMs };
    let failures = 0;
    let needList = true;
    while (!signal.aborted) {
      try {
        if (needList) {
          await this.#list(stream, signal);
          needList = false;
          this.#servedAgain(stream);
        }
        this.stats.watches++;
        await this.#watch(stream, signal);
        failures = 0; // the server closed a healthy watch (timeoutSeconds): resume at once
      } catch (error) {
        if (signal.aborted) break;
        if (error instanceof ApiError && error.status === 410) {
          this.stats.relistsAfterGone++;
          this.#options.log.info(
            { resource: this.type.plural, namespace: stream.namespace },
            "watch expired (410 Gone); relisting",
          );
          needList = true;
          continue;
        }
        this.stats.watchErrors++;
        this.#options.onError?.(error, ++failures);
        if (signal.aborted) break;
        const backoff = exponentialDelay(backoffBounds, failures - 1);
        if (isNotFound(error)) {
          needList = true; // a type served again starts from a list
          this.#unserved(stream, backoff);
        } else if (error instanceof ApiError && error.status === 429) {
          // flow control, not a failure: a type's watch cache still initialising (a CRD just
          // installed answers "storage is (re)initializing") or a full priority-level queue
          this.#options.log.info(
            { resource: this.type.plural, namespace: stream.namespace, retryInMs: backoff },
            "the API server asked to retry (429); retrying",
          );
        } else {
          this.#options.log.warn(
            {
              resource: this.type.plural,
              namespace: stream.namespace,
              err: (error as Error).message,
              retryInMs: backoff,
            },
            "list/watch failed; retrying",
          );
        }
        await abortableSleep(withJitter(backoff, 0.2), signal);
      }
    }
  }

  /** A 404: warned once when the type stops being served (not on every retry); retried with the same backoff. */
  #unserved(stream: Stream, backoffMs: number): void {
    const warned = this.#streams.some((s) => s.unserved);
    stream.unserved = true;
    this.#syncWaiters = this.#syncWaiters.filter((waiter) => {
      if (waiter.orUnserved) waiter.resolve();
      return !waiter.orUnserved;
    });
    if (warned) return;
    this.#options.log.warn(
      { resource: typeId(this.type), namespace: stream.namespace, retryInMs: backoffMs },
      `the API server does not serve ${typeId(this.type)} (is its CRD installed?); retrying with backoff until it does`,
    );
  }

  #servedAgain(stream: Stream): void {
    if (!stream.unserved) return;
    stream.unserved = false;
    if (this.#streams.some((s) => s.unserved)) return;
    this.#options.log.info({ resource: typeId(this.type) }, `the API server serves ${typeId(this.type)} now`);
  }

  #path(stream: Stream): string {
    return resourcePath(this.type, { namespace: stream.namespace });
  }

  async #list(stream: Stream, signal: AbortSignal): Promise<void> {
    this.stats.lists++;
    const listed = new Map<string, KubeObject>();
    let continueToken: string | undefined;
    let resourceVersion = "";
    do {
      this.stats.listPages++;
      const page = await this.#rest.request<{
        metadata: { resourceVersion: string; continue?: string };
        items: KubeObject[];
      }>("GET", this.#path(stream), {
        query: {
          limit: this.#options.pageSize ?? 500,
          continue: continueToken,
          fieldSelector: this.type.fieldSelector,
          labelSelector: this.type.labelSelector,
        },
        signal,
      });
      const apiVersion = this.type.group ? `${this.type.group}/${this.type.version}` : this.type.version;
      for (const item of page.items) {
        item.apiVersion = apiVersion;
        item.kind = this.type.kind;
        listed.set(keyString({ namespace: item.metadata?.namespace, name: item.metadata?.name ?? "" }), item);
      }
      resourceVersion = page.metadata.resourceVersion;
      continueToken = page.metadata.continue || undefined;
    } while (continueToken);
    this.#replace(listed, stream.namespace);
    stream.resourceVersion = resourceVersion;
    this.#markSynced(stream);
  }

  /** The store's objects of `namespace` (all, without one) become `listed`. */
  #replace(listed: Map<string, KubeObject>, namespace: string | undefined): void {
    for (const [key, old] of this.#store) {
      if (namespace !== undefined && old.metadata?.namespace !== namespace) continue;
      if (!listed.has(key)) this.#delete(key, old);
    }
    for (const [key, object] of listed) this.#upsert(key, object);
  }

  async #watch(stream: Stream, signal: AbortSignal): Promise<void> {
    const timeoutSeconds = 300 + Math.floor(Math.random() * 300);
    await this.#rest.watch(
      this.#path(stream),
      {
        resourceVersion: stream.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds,
        fieldSelector: this.type.fieldSelector,
        labelSelector: this.type.labelSelector,
      },
      (event) => this.#onEvent(stream, event),
      signal,
      // the server ends the watch after timeoutSeconds and sends bookmarks meanwhile: silence beyond that is a dead connection
      (timeoutSeconds + 60) * 1000,
    );
  }

  #onEvent(stream: Stream, event: WatchEvent): void {
    if (event.type === "ERROR") {
      const status = event.object as { code?: number; message?: string; reason?: string };
      throw new ApiError(status.code ?? 500, "WATCH", this.#path(stream), status);
    }
    const object = event.object as KubeObject;
    const resourceVersion = object.metadata?.resourceVersion;
    if (event.type !== "BOOKMARK") {
      const key = keyString({ namespace: object.metadata?.namespace, name: object.metadata?.name ?? "" });
      if (event.type === "DELETED") {
        const old = this.#store.get(key);
        if (old) this.#delete(key, old);
      } else {
        this.#upsert(key, object);
      }
    }
    if (resourceVersion) stream.resourceVersion = resourceVersion;
  }

  #upsert(key: string, object: KubeObject): void {
    // controllers never read managedFields; they are often most of an object's size
    if (object.metadata?.managedFields) delete object.metadata.managedFields;
    if (this.type.cacheWithoutSpec) delete (object as { spec?: unknown }).spec;
    const old = this.#store.get(key);
    if (old && old.metadata?.resourceVersion === object.metadata?.resourceVersion) return;
    this.#store.set(key, object);
    for (const [name, values] of this.#indexers) {
      const index = this.#indices.get(name) as Map<string, Set<string>>;
      if (old) this.#indexObject(name, values, index, key, old, false);
      this.#indexObject(name, values, index, key, object, true);
    }
    for (const handlers of this.#handlers) {
      this.#safely(() => (old ? handlers.update?.(old, object) : handlers.add?.(object)));
    }
  }

  #delete(key: string, old: KubeObject): void {
    this.#store.delete(key);
    for (const [name, values] of this.#indexers) {
      this.#indexObject(name, values, this.#indices.get(name) as Map<string, Set<string>>, key, old, false);
    }
    for (const handlers of this.#handlers) this.#safely(() => handlers.delete?.(old));
  }

  #indexObject(
    name: string,
    values: IndexFunction,
    index: Map<string, Set<string>>,
    key: string,
    object: KubeObject,
    add: boolean,
  ): void {
    let indexed: string[];
    try {
      indexed = values(object);
    } catch (error) {
      this.#options.log.error({ index: name, key, err: (error as Error).message }, "index function failed");
      return;
    }
    for (const value of indexed) {
      let keys = index.get(value);
      if (add) {
        if (!keys) {
          keys = new Set();
          index.set(value, keys);
        }
        keys.add(key);
      } else if (keys) {
        keys.delete(key);
        if (keys.size === 0) index.delete(value);
      }
    }
  }

  #safely(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.#options.log.error(
        { resource: this.type.plural, err: (error as Error).message },
        "event handler failed",
      );
    }
  }

  #markSynced(stream: Stream): void {
    stream.synced = true;
    if (this.#synced || !this.#streams.every((s) => s.synced)) return;
    this.#synced = true;
    for (const waiter of this.#syncWaiters.splice(0)) waiter.resolve();
  }
}
