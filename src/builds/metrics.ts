import type { ImageBuildStatus } from "../apis/builds/imagebuild.ts";
import { type Counter, type Histogram, Registry } from "../lib/metrics-client.ts";
import { metricsIn } from "../lib/registry-metrics.ts";
import { succeededCondition } from "./decide.ts";

/** Image-build metrics; pass the operator's registry so /metrics serves them with the runtime's. */
export class BuildMetrics {
  readonly registry: Registry;
  readonly started: Counter<"backend">;
  readonly succeeded: Counter<"backend">;
  readonly failed: Counter<"reason">;
  readonly reused: Counter;
  readonly duration: Histogram<"result">;
  readonly registryRequests: Counter<"status_class">;
  readonly registryLatency: Histogram<"status_class">;

  constructor(registry = new Registry()) {
    this.registry = registry;
    const metric = metricsIn(registry);
    this.started = metric.counter(
      "slipway_image_builds_started_total",
      "Image builds started (a Job or a local build)",
      ["backend"],
    );
    this.succeeded = metric.counter(
      "slipway_image_builds_succeeded_total",
      "Image builds that pushed their image",
      ["backend"],
    );
    this.failed = metric.counter("slipway_image_builds_failed_total", "Image builds that failed, by reason", [
      "reason",
    ]);
    this.reused = metric.counter(
      "slipway_image_builds_reused_total",
      "Image builds whose image already existed: nothing built",
    );
    this.duration = metric.histogram(
      "slipway_image_build_duration_seconds",
      "From build start to Succeeded or Failed",
      [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600],
      ["result"],
    );
    this.registryRequests = metric.counter(
      "slipway_registry_requests_total",
      "HTTP requests to image registries by status class (2xx, 4xx, 5xx, error)",
      ["status_class"],
    );
    this.registryLatency = metric.histogram(
      "slipway_registry_request_duration_seconds",
      "Latency of HTTP requests to image registries",
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15],
      ["status_class"],
    );
  }

  observeRegistryRequest(statusClass: string, seconds: number): void {
    this.registryRequests.inc({ status_class: statusClass });
    this.registryLatency.observe({ status_class: statusClass }, seconds);
  }

  /** Counts a written status that finished a build (`previous`: the phase it had before). */
  countFinished(previous: ImageBuildStatus["phase"], status: ImageBuildStatus, backend: string): void {
    if (previous === status.phase) return;
    if (status.phase === "Succeeded") {
      if (status.reused) this.reused.inc();
      else this.succeeded.inc({ backend });
    } else if (status.phase === "Failed") {
      const reason = succeededCondition(status)?.reason ?? "Unknown";
      this.failed.inc({ reason });
    } else return;
    if (status.startedAt && status.completedAt) {
      const seconds = (Date.parse(status.completedAt) - Date.parse(status.startedAt)) / 1000;
      this.duration.observe({ result: status.phase }, seconds);
    }
  }
}
