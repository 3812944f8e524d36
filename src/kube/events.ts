import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import { resourcePath } from "./keys.ts";
import { isNotFound, type RestClient } from "./rest.ts";
import { eventType } from "./runtime-types.ts";
import type { EventRecorder, KubeObject } from "./types.ts";

const eventsPath = (namespace: string, name?: string) =>
  resourcePath(eventType, { namespace, ...(name ? { name } : {}) });

/** metav1.MicroTime: RFC 3339 with microseconds. */
const microTime = (date: Date) => `${date.toISOString().slice(0, 23)}000Z`;

/** Repeats of one event within this window update the first event's series instead of creating another. */
const seriesWindowMs = 6 * 60_000;
const maxPending = 1000;

interface Recorded {
  namespace: string;
  name: string;
  count: number;
  firstAt: number;
}

interface Pending {
  object: KubeObject;
  type: "Normal" | "Warning";
  reason: string;
  note: string;
  at: Date;
}

/**
 * Writes events.k8s.io/v1 Events in the background (a reconcile never waits for them); a repeat of
 * the same (object, type, reason, note) within six minutes patches the first Event's series
 * (count, lastObservedTime) instead of creating a new one. Under overload, events are dropped.
 */
export class KubeEventRecorder implements EventRecorder {
  readonly #rest: RestClient;
  readonly #controller: string;
  readonly #instance: string;
  readonly #log: Logger;
  readonly #now: () => Date;
  readonly #recorded = new Map<string, Recorded>();
  readonly #pending: Pending[] = [];
  #draining: Promise<void> | undefined;

  /** `now`: the clock events are stamped by (default the system's); tests step it instead of waiting. */
  constructor(
    rest: RestClient,
    options: { controller: string; instance: string; log: Logger; now?: () => Date },
  ) {
    this.#rest = rest;
    this.#controller = options.controller;
    this.#instance = options.instance;
    this.#log = options.log;
    this.#now = options.now ?? (() => new Date());
  }

  event(object: KubeObject, type: "Normal" | "Warning", reason: string, message: string): void {
    if (this.#pending.length >= maxPending) {
      this.#log.warn({ reason }, "event dropped: too many pending events");
      return;
    }
    this.#pending.push({ object, type, reason, note: message.slice(0, 1024), at: this.#now() });
    this.#draining ??= this.#drain().finally(() => {
      this.#draining = undefined;
    });
  }

  /** Resolves when every event recorded so far has been written (or has failed). */
  async flush(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  async #drain(): Promise<void> {
    for (let next = this.#pending.shift(); next; next = this.#pending.shift()) {
      try {
        await this.#write(next);
      } catch (error) {
        this.#log.warn({ reason: next.reason, err: (error as Error).message }, "could not write event");
      }
    }
  }

  async #write({ object, type, reason, note, at }: Pending): Promise<void> {
    const metadata = object.metadata ?? {};
    const identity = `${metadata.uid ?? `${metadata.namespace}/${metadata.name}`}|${type}|${reason}|${note}`;
    const previous = this.#recorded.get(identity);
    if (previous && at.getTime() - previous.firstAt < seriesWindowMs) {
      previous.count++;
      try {
        await this.#rest.request("PATCH", eventsPath(previous.namespace, previous.name), {
          body: { series: { count: previous.count, lastObservedTime: microTime(at) } },
          contentType: "application/merge-patch+json",
        });
        return;
      } catch (error) {
        if (!isNotFound(error)) throw error;
        // the Event expired (TTL): start a new one
      }
    }
    const namespace = metadata.namespace || "default";
    const name = `${metadata.name ?? "object"}.${randomBytes(8).toString("hex")}`;
    await this.#rest.request("POST", eventsPath(namespace), {
      body: {
        apiVersion: "events.k8s.io/v1",
        kind: "Event",
        metadata: { name, namespace },
        eventTime: microTime(at),
        reportingController: this.#controller,
        reportingInstance: this.#instance,
        action: reason,
        reason,
        note,
        type,
        regarding: {
          apiVersion: object.apiVersion,
          kind: object.kind,
          name: metadata.name,
          namespace: metadata.namespace,
          uid: metadata.uid,
          resourceVersion: metadata.resourceVersion,
        },
      },
    });
    this.#recorded.set(identity, { namespace, name, count: 1, firstAt: at.getTime() });
    if (this.#recorded.size > 4096) this.#forgetOld(at.getTime());
  }

  #forgetOld(now: number): void {
    for (const [identity, recorded] of this.#recorded) {
      if (now - recorded.firstAt >= seriesWindowMs) this.#recorded.delete(identity);
    }
  }
}
