import type { ImageBuildStatus } from "../apis/builds/imagebuild.ts";
import { Counter, Histogram, Registry } from "../lib/metrics-client.ts";
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
    const registers = [registry];
    this.started = new Counter({
      name: "slipway_image_builds_started_total",
      help: "Image builds started (a Job or a local build)",
      labelNames: ["backend"],
      registers,
    });
    this.succeeded = new Counter({
      name: "slipway_image_builds_succeeded_total",
      help: "Image builds that pushed their image",
      labelNames: ["backend"],
      registers,
    });
    this.failed = new Counter({
      name: "slipway_image_builds_failed_total",
      help: "Image builds that failed, by reason",
      labelNames: ["reason"],
      registers,
    });
    this.reused = new Counter({
      name: "slipway_image_builds_reused_total",
      help: "Image builds whose image already existed: nothing built",
      registers,
    });
    this.duration = new Histogram({
      name: "slipway_image_build_duration_seconds",
      help: "From build start to Succeeded or Failed",
      labelNames: ["result"],
      buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600],
      registers,
    });
    this.registryRequests = new Counter({
      name: "slipway_registry_requests_total",
      help: "HTTP requests to image registries by status class (2xx, 4xx, 5xx, error)",
      labelNames: ["status_class"],
      registers,
    });
    this.registryLatency = new Histogram({
      name: "slipway_registry_request_duration_seconds",
      help: "Latency of HTTP requests to image registries",
      labelNames: ["status_class"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15],
      registers,
    });
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
