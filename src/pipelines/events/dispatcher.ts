/**
 * Sends the due deliveries of one resource's recorded completions (I/O around delivery.ts): every due
 * (event, sink) pair at once, each with its own timeout, so a slow or failing sink delays no other.
 * It remembers what it last decided per (event, sink): a reconcile computed from a cached copy that
 * does not yet hold this process's last write neither sends an acknowledged event again nor repeats
 * an attempt early.
 */
import { setNewest } from "../../lib/bounded-map.ts";
import type { OutboundPolicy } from "../outbound-policy.ts";
import {
  type AttemptOutcome,
  afterAttempt,
  defaultRetry,
  isDue,
  later,
  type RetryPolicy,
  type SinkDelivery,
} from "./delivery.ts";
import { type CompletionIdentity, type DeliveryRecord, runCompletionEvent } from "./event.ts";
import { EventMetrics } from "./metrics.ts";
import { type Sink, sinkName } from "./sinks.ts";
import { type Send, transports } from "./transports.ts";

export interface EventsOptions {
  /** The operator's own sinks: every completion goes to them too. */
  sinks?: readonly Sink[];
  retry?: RetryPolicy;
  /** How long one attempt may take before it counts as failed. Default 10 s. */
  timeoutMs?: number;
  /**
   * The operator's outbound policy, for the sinks a tenant names (a Provider's, a Run's); the
   * operator's own sinks are the installer's and go unchecked. Unset: none checked (tests' own sends).
   */
  outbound?: OutboundPolicy;
}

/** How many (event, sink) decisions are remembered (oldest forgotten first). */
const remembered = 20_000;

export class EventDispatcher {
  readonly metrics: EventMetrics;
  readonly operatorSinks: readonly Sink[];
  readonly #retry: RetryPolicy;
  readonly #timeoutMs: number;
  readonly #send: Send;
  readonly #close: () => Promise<void>;
  readonly #now: () => number;
  readonly #decided = new Map<string, SinkDelivery>();
  readonly #operatorSinkNames: ReadonlySet<string>;

  constructor(
    options: EventsOptions = {},
    deps: { send?: Send; metrics?: EventMetrics; now?: () => number } = {},
  ) {
    this.operatorSinks = options.sinks ?? [];
    this.#operatorSinkNames = new Set(this.operatorSinks.map(sinkName));
    this.#retry = options.retry ?? defaultRetry;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    const made = deps.send ? undefined : transports(options.outbound);
    this.#send = deps.send ?? (made?.send as Send);
    this.#close = made?.close ?? (async () => {});
    this.metrics = deps.metrics ?? new EventMetrics();
    this.#now = deps.now ?? Date.now;
  }

  /** The records after attempting every due delivery (unchanged entries where nothing was due). */
  async deliver(
    identity: CompletionIdentity,
    records: readonly DeliveryRecord[],
    sinks: ReadonlyMap<string, Sink>,
  ): Promise<DeliveryRecord[]> {
    return Promise.all(
      records.map(async (record) => ({
        ...record,
        sinks: await Promise.all(
          record.sinks.map((delivery) =>
            this.#attempt(
              identity,
              record,
              later(delivery, this.#decided.get(keyOf(record, delivery))),
              sinks,
            ),
          ),
        ),
      })),
    );
  }

  async #attempt(
    identity: CompletionIdentity,
    record: DeliveryRecord,
    delivery: SinkDelivery,
    sinks: ReadonlyMap<string, Sink>,
  ): Promise<SinkDelivery> {
    if (!isDue(delivery, this.#now())) return delivery;
    const sink = sinks.get(delivery.sink);
    const outcome: AttemptOutcome = sink
      ? await this.#send(
          sink,
          runCompletionEvent(identity, record),
          this.#timeoutMs,
          !this.#operatorSinkNames.has(delivery.sink),
        )
      : { ok: false, error: "the sink is no longer configured", permanent: true };
    const now = this.#now();
    const after = afterAttempt(delivery, outcome, now, this.#retry);
    const labels = { sink: delivery.sink, type: record.type };
    if (after.delivered) {
      this.metrics.published.inc(labels);
      this.metrics.latency.observe(labels, Math.max(0, now - Date.parse(record.recordedAt)) / 1000);
    } else if (after.failed) this.metrics.failed.inc(labels);
    else this.metrics.retried.inc(labels);
    setNewest(this.#decided, keyOf(record, delivery), after, remembered);
    return after;
  }

  /** Closes the NATS connections it opened. */
  close(): Promise<void> {
    return this.#close();
  }
}

const keyOf = (record: DeliveryRecord, delivery: SinkDelivery) => `${record.id}\n${delivery.sink}`;
