import { Registry } from "../lib/metrics-client.ts";
import { metricsIn } from "../lib/registry-metrics.ts";
import type { QueueObserver } from "./queue.ts";

const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The operator's metrics, under controller-runtime's names, in a registry of their own. */
export class RuntimeMetrics {
  readonly registry = new Registry();
  readonly #metric = metricsIn(this.registry);
  readonly reconcileTotal = this.#metric.counter(
    "controller_runtime_reconcile_total",
    "Total number of reconciliations per controller",
    ["controller", "result"],
  );
  readonly reconcileErrors = this.#metric.counter(
    "controller_runtime_reconcile_errors_total",
    "Total number of reconciliation errors per controller",
    ["controller"],
  );
  readonly reconcileTerminalErrors = this.#metric.counter(
    "controller_runtime_terminal_reconcile_errors_total",
    "Total number of terminal reconciliation errors per controller",
    ["controller"],
  );
  readonly reconcileTime = this.#metric.histogram(
    "controller_runtime_reconcile_time_seconds",
    "Length of time per reconciliation per controller",
    durationBuckets,
    ["controller"],
  );
  readonly activeWorkers = this.#metric.gauge(
    "controller_runtime_active_workers",
    "Number of currently used workers per controller",
    ["controller"],
  );
  readonly queueDepth = this.#metric.gauge("workqueue_depth", "Current depth of workqueue", ["name"]);
  readonly queueAdds = this.#metric.counter(
    "workqueue_adds_total",
    "Total number of adds handled by workqueue",
    ["name"],
  );
  readonly queueRetries = this.#metric.counter(
    "workqueue_retries_total",
    "Total number of retries handled by workqueue",
    ["name"],
  );
  readonly queueDuration = this.#metric.histogram(
    "workqueue_queue_duration_seconds",
    "How long in seconds an item stays in workqueue before being requested",
    durationBuckets,
    ["name"],
  );
  readonly workDuration = this.#metric.histogram(
    "workqueue_work_duration_seconds",
    "How long in seconds processing an item from workqueue takes",
    durationBuckets,
    ["name"],
  );
  readonly leaderStatus = this.#metric.gauge(
    "leader_election_master_status",
    "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master",
    ["name"],
  );
  readonly rateLimiterWait = this.#metric.histogram(
    "rest_client_rate_limiter_duration_seconds",
    "Client side rate limiter latency in seconds",
    durationBuckets,
  );
  readonly restRequests = this.#metric.counter(
    "rest_client_requests_total",
    "Number of HTTP requests, partitioned by status code and method",
    ["code", "method"],
  );

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
