import { describe, expect, it } from "vitest";
import { dueAtMs, isWrite, metricSum, peakRate, percentile } from "../../../bench/scale/figures.ts";
import { hasStatus, isCurrent } from "../../../bench/scale/tracker.ts";

describe("the scale bench's figures", () => {
  it("takes nearest-rank percentiles", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  it("sums a metric's samples from Prometheus text, filtered by labels", () => {
    const text = [
      "# HELP rest_client_requests_total Requests.",
      "# TYPE rest_client_requests_total counter",
      'rest_client_requests_total{code="200",method="GET"} 40',
      'rest_client_requests_total{code="201",method="POST"} 3',
      'rest_client_requests_total{code="200",host="127.0.0.1:6443",method="PATCH"} 5',
      'rest_client_requests_total_other{method="PATCH"} 100',
      'workqueue_depth{name="run"} 2',
      "workqueue_depth 1",
    ].join("\n");
    expect(metricSum(text, "rest_client_requests_total")).toBe(48);
    expect(metricSum(text, "rest_client_requests_total", isWrite)).toBe(8);
    expect(metricSum(text, "workqueue_depth")).toBe(3);
    expect(metricSum(text, "workqueue_depth", (labels) => labels.name === "run")).toBe(2);
    expect(metricSum(text, "absent_total")).toBe(0);
  });

  it("finds a counter's peak rate per second, merging samples closer than the span", () => {
    const samples = [
      { at: 0, total: 0 },
      { at: 1000, total: 10 },
      { at: 1100, total: 30 }, // too close to the last: merged into the next span
      { at: 2000, total: 40 },
      { at: 3000, total: 45 },
    ];
    expect(peakRate(samples)).toBe(30);
    expect(peakRate([{ at: 0, total: 5 }])).toBe(0);
  });

  it("spaces a steady stream evenly", () => {
    expect(dueAtMs(0, 50)).toBe(0);
    expect(dueAtMs(100, 50)).toBe(2000);
  });
});

describe("the scale bench's status reading", () => {
  const object = (status?: Record<string, unknown>) => ({ metadata: { generation: 2 }, status });

  it("counts a status current when written for this generation and settled", () => {
    expect(isCurrent(object({ observedGeneration: 2, state: "Succeeded" }))).toBe(true);
    expect(isCurrent(object({ observedGeneration: 2, phase: "Succeeded" }))).toBe(true);
    expect(isCurrent(object({ observedGeneration: 2 }))).toBe(true); // the peer's
    expect(isCurrent(object({ observedGeneration: 1, state: "Succeeded" }))).toBe(false);
    expect(isCurrent(object({ observedGeneration: 2, state: "Creating" }))).toBe(false);
    expect(isCurrent(object({ observedGeneration: 2, phase: "Failed" }))).toBe(false);
    expect(isCurrent(object())).toBe(false);
  });

  it("does not count Slipway's status of a resource still waiting (no state yet) or a Provider not Ready", () => {
    const waiting = { type: "Synchronized", status: "Unknown" };
    expect(isCurrent(object({ observedGeneration: 2, conditions: [waiting] }))).toBe(false);
    expect(isCurrent(object({ observedGeneration: 2, state: "Succeeded", conditions: [waiting] }))).toBe(
      true,
    );
    const ready = (status: string) => [{ type: "Ready", status }];
    expect(isCurrent(object({ observedGeneration: 2, conditions: ready("False") }))).toBe(false);
    expect(isCurrent(object({ observedGeneration: 2, conditions: ready("True") }))).toBe(true);
  });

  it("tells a first status write from none", () => {
    expect(hasStatus(object())).toBe(false);
    expect(hasStatus(object({}))).toBe(false);
    expect(hasStatus(object({ state: "Creating" }))).toBe(true);
  });
});
