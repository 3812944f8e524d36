import { Counter, Gauge, Histogram, Registry } from "../lib/metrics-client.ts";
import type { QueueObserver } from "./queue.ts";

const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The operator's metrics, under controller-runtime's names, in a registry of their own. */
export class RuntimeMetrics {
  readonly registry = new Registry();
  readonly reconcileTotal = new Counter({
    name: "controller_runtime_reconcile_total",
    help: "Total number of reconciliations per controller",
    labelNames: ["controller", "result"],
    registers: [this.registry],
  });
  readonly reconcileErrors = new Counter({
    name: "controller_runtime_reconcile_errors_total",
    help: "Total number of reconciliation errors per controller",
    labelNames: ["controller"],
    registers: [this.registry],
  });
  readonly reconcileTerminalErrors = new Counter({
    name: "controller_runtime_terminal_reconcile_errors_total",
    help: "Total number of terminal reconciliation errors per controller",
    labelNames: ["controller"],
    registers: [this.registry],
  });
  readonly reconcileTime = new Histogram({
    name: "controller_runtime_reconcile_time_seconds",
    help: "Length of time per reconciliation per controller",
    labelNames: ["controller"],
    buckets: durationBuckets,
    registers: [this.registry],
  });
  readonly activeWorkers = new Gauge({
    name: "controller_runtime_active_workers",
    help: "Number of currently used workers per controller",
    labelNames: ["controller"],
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: "workqueue_depth",
    help: "Current depth of workqueue",
    labelNames: ["name"],
    registers: [this.registry],
  });
  readonly queueAdds = new Counter({
    name: "workqueue_adds_total",
    help: "Total number of adds handled by workqueue",
    labelNames: ["name"],
    registers: [this.registry],
  });
  readonly queueRetries = new Counter({
    name: "workqueue_retries_total",
    help: "Total number of retries handled by workqueue",
    labelNames: ["name"],
    registers: [this.registry],
  });
  readonly queueDuration = new Histogram({
    name: "workqueue_queue_duration_seconds",
    help: "How long in seconds an item stays in workqueue before being requested",
    labelNames: ["name"],
    buckets: durationBuckets,
    registers: [this.registry],
  });
  readonly workDuration = new Histogram({
    name: "workqueue_work_duration_seconds",
    help: "How long in seconds processing an item from workqueue takes",
    labelNames: ["name"],
    buckets: durationBuckets,
    registers: [this.registry],
  });
  readonly leaderStatus = new Gauge({
    name: "leader_election_master_status",
    help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master",
    labelNames: ["name"],
    registers: [this.registry],
  });
  readonly rateLimiterWait = new Histogram({
    name: "rest_client_rate_limiter_duration_seconds",
    help: "Client side rate limiter latency in seconds",
    buckets: durationBuckets,
    registers: [this.registry],
  });
  readonly restRequests = new Counter({
    name: "rest_client_requests_total",
    help: "Number of HTTP requests, partitioned by status code and method",
    labelNames: ["code", "method"],
    registers: [this.registry],
  });

  queueObserver(name: string): QueueObserver {
    return {
      added: () => this.queueAdds.inc({ name }),
      retried: () => this.queueRetries.inc({ name }),
      depth: (depth) => this.queueDepth.set({ name }, depth),
      queued: (seconds) => this.queueDuration.observe({ name }, seconds),
      worked: (seconds) => this.workDuration.observe({ name }, seconds),
    };
  }

  /** Requests by method so far (sum over codes), e.g. for counting reads and writes. */
  async requestsByMethod(): Promise<Record<string, number>> {
    const totals: Record<string, number> = {};
    for (const value of (await this.restRequests.get()).values) {
      const method = String(value.labels.method);
      totals[method] = (totals[method] ?? 0) + value.value;
    }
    return totals;
  }
}
