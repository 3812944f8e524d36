import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { InformerCache } from "./cache.ts";
import { shouldReconcileUpdate } from "./filters.ts";
import { groupOf, keyOf, keyString, parseKey } from "./keys.ts";
import type { RuntimeMetrics } from "./metrics.ts";
import { controllerOf } from "./owners.ts";
import { WorkQueue } from "./queue.ts";
import { readKinds } from "./reads.ts";
import {
  type Client,
  type ControllerSpec,
  type EventRecorder,
  type KubeObject,
  type ObjectKey,
  type ResourceType,
  TerminalError,
} from "./types.ts";

export interface ControllerDependencies {
  cache: InformerCache;
  client: Client;
  events: EventRecorder;
  log: Logger;
  metrics: RuntimeMetrics;
}

/**
 * Runs one ControllerSpec: informer events become keys in its work queue (`for` objects through the
 * generation-changed filter; `owns` children through their controlling owner; `watches` through
 * their map function), and `concurrency` workers reconcile them, never two at once for one key.
 */
export class Controller {
  readonly spec: ControllerSpec;
  readonly queue: WorkQueue;
  readonly #deps: ControllerDependencies;
  readonly #log: Logger;
  readonly #abort = new AbortController();
  #workers: Promise<void>[] = [];

  constructor(spec: ControllerSpec, deps: ControllerDependencies) {
    this.spec = spec;
    this.#deps = deps;
    this.#log = deps.log.child({ controller: spec.name });
    this.queue = new WorkQueue({ observer: deps.metrics.queueObserver(spec.name) });
    this.#register();
  }

  /** Enqueues a key directly (e.g. from a timer or an external trigger). */
  enqueue(key: ObjectKey): void {
    this.queue.add(keyString(key));
  }

  /** The kinds this controller reads: its workers need their caches synced. */
  types(): ResourceType[] {
    return readKinds(this.spec);
  }

  /** Starts the workers; the caches must be synced. */
  start(): void {
    const concurrency = this.spec.concurrency ?? 4;
    for (let i = 0; i < concurrency; i++) this.#workers.push(this.#work());
  }

  /**
   * Stops intake and waits for in-flight reconciles; after `deadlineMs` their signal is aborted and
   * they are abandoned. Resolves true when everything finished in time.
   */
  async stop(deadlineMs = 30_000): Promise<boolean> {
    this.queue.shutDown();
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      Promise.all(this.#workers).then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), deadlineMs);
      }),
    ]);
    clearTimeout(timer);
    if (!finished) {
      this.#abort.abort();
      this.#log.warn(
        { inFlight: [...this.queue.inFlight] },
        "reconciles still running at the shutdown deadline",
      );
    }
    return finished;
  }

  #register(): void {
    const { cache } = this.#deps;
    const spec = this.spec;
    const enqueueObject = (object: KubeObject) => this.queue.add(keyString(keyOf(object)));
    cache.informer(spec.for).addHandlers({
      add: enqueueObject,
      update: (oldObject, newObject) => {
        if (shouldReconcileUpdate(oldObject, newObject)) enqueueObject(newObject);
      },
      delete: enqueueObject,
    });
    const ownerGroup = spec.for.group;
    const enqueueOwner = (object: KubeObject) => {
      const owner = controllerOf(object);
      if (!owner || owner.kind !== spec.for.kind || groupOf(owner.apiVersion) !== ownerGroup) return;
      const namespace = spec.for.namespaced ? object.metadata?.namespace : undefined;
      this.queue.add(keyString(namespace ? { namespace, name: owner.name } : { name: owner.name }));
    };
    for (const type of spec.owns ?? []) {
      cache.informer(type).addHandlers({
        add: enqueueOwner,
        update: (oldObject, newObject) => {
          enqueueOwner(newObject);
          // a child whose controller changed also concerns its former owner
          if (controllerOf(oldObject)?.uid !== controllerOf(newObject)?.uid) enqueueOwner(oldObject);
        },
        delete: enqueueOwner,
      });
    }
    for (const watch of spec.watches ?? []) {
      const enqueueMapped = (object: KubeObject) => {
        for (const key of watch.map(object, cache)) this.queue.add(keyString(key));
      };
      cache.informer(watch.type).addHandlers({
        add: enqueueMapped,
        update: (oldObject, newObject) => {
          enqueueMapped(newObject);
          enqueueMapped(oldObject);
        },
        delete: enqueueMapped,
      });
    }
    for (const index of spec.indexes ?? []) cache.addIndex(index.type, index.name, index.values);
  }

  async #work(): Promise<void> {
    for (let key = await this.queue.get(); key !== undefined; key = await this.queue.get()) {
      try {
        await this.#reconcileOnce(key);
      } finally {
        this.queue.done(key);
      }
    }
  }

  async #reconcileOnce(key: string): Promise<void> {
    const { metrics } = this.#deps;
    const controller = this.spec.name;
    // most reconciles never log: the child logger (and its reconcile id) is made on first use
    let childLog: Logger | undefined;
    const parent = this.#log;
    const context = {
      cache: this.#deps.cache,
      client: this.#deps.client,
      events: this.#deps.events,
      signal: this.#abort.signal,
      get log(): Logger {
        childLog ??= parent.child({ key, reconcileID: randomUUID() });
        return childLog;
      },
    };
    const log = () => context.log;
    const started = performance.now();
    metrics.activeWorkers.inc({ controller });
    try {
      const result = await this.spec.reconcile(parseKey(key), context);
      this.queue.forget(key);
      if (result?.requeueAfterMs !== undefined) {
        this.queue.addAfter(key, result.requeueAfterMs);
        metrics.reconcileTotal.inc({ controller, result: "requeue_after" });
      } else {
        metrics.reconcileTotal.inc({ controller, result: "success" });
      }
    } catch (error) {
      metrics.reconcileErrors.inc({ controller });
      metrics.reconcileTotal.inc({ controller, result: "error" });
      if (error instanceof TerminalError) {
        metrics.reconcileTerminalErrors.inc({ controller });
        this.queue.forget(key);
        log().error({ err: error.message }, "reconcile failed (terminal: not retried)");
      } else {
        this.queue.addRateLimited(key);
        log().error(
          { err: (error as Error)?.message ?? String(error), retries: this.queue.retries(key) },
          "reconcile failed; retrying with backoff",
        );
      }
    } finally {
      metrics.activeWorkers.dec({ controller });
      metrics.reconcileTime.observe({ controller }, (performance.now() - started) / 1000);
    }
  }
}
