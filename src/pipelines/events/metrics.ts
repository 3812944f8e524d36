import { Counter, Histogram, Registry } from "../../lib/metrics-client.ts";

const latencyBuckets = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600];

/** Run-completion event metrics, by sink (its name) and event type. */
export class EventMetrics {
  readonly registry: Registry;
  readonly published: Counter<"sink" | "type">;
  readonly failed: Counter<"sink" | "type">;
  readonly retried: Counter<"sink" | "type">;
  readonly latency: Histogram<"sink" | "type">;

  constructor(registry = new Registry()) {
    this.registry = registry;
    const registers = [registry];
    const labelNames = ["sink", "type"] as const;
    this.published = new Counter({
      name: "slipway_pipeline_events_published_total",
      help: "Run-completion events a sink acknowledged",
      labelNames,
      registers,
    });
    this.failed = new Counter({
      name: "slipway_pipeline_events_failed_total",
      help: "Run-completion events given up on (the sink kept failing or refused them)",
      labelNames,
      registers,
    });
    this.retried = new Counter({
      name: "slipway_pipeline_events_retried_total",
      help: "Failed delivery attempts that will be retried",
      labelNames,
      registers,
    });
    this.latency = new Histogram({
      name: "slipway_pipeline_event_delivery_seconds",
      help: "From a completion being recorded to its sink acknowledging the event",
      labelNames,
      buckets: latencyBuckets,
      registers,
    });
  }
}
