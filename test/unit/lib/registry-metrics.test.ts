import { register as globalRegistry } from "prom-client";
import { describe, expect, expectTypeOf, it } from "vitest";
import { type Counter, type Gauge, type Histogram, Registry } from "../../../src/lib/metrics-client.ts";
import { metricsIn } from "../../../src/lib/registry-metrics.ts";

describe("metricsIn: a metric declared in one registry", () => {
  it("registers each metric under its name, help, label names and buckets, in that registry only", async () => {
    const registry = new Registry();
    const metric = metricsIn(registry);
    const requests = metric.counter("test_requests_total", "Requests by code and method", ["code", "method"]);
    const reused = metric.counter("test_reused_total", "Reused, no labels");
    const depth = metric.gauge("test_depth", "Current depth by queue", ["name"]);
    const latency = metric.histogram("test_latency_seconds", "Latency by code", [0.1, 1], ["code"]);
    const wait = metric.histogram("test_wait_seconds", "Wait, no labels", [0.5]);

    requests.inc({ code: "200", method: "GET" });
    reused.inc();
    depth.set({ name: "q" }, 3);
    latency.observe({ code: "500" }, 0.5);
    wait.observe(0.25);

    expect(registry.getSingleMetric("test_requests_total")).toBe(requests);
    expect(registry.getSingleMetric("test_latency_seconds")).toBe(latency);
    expect(await registry.metrics()).toBe(
      [
        "# HELP test_requests_total Requests by code and method",
        "# TYPE test_requests_total counter",
        'test_requests_total{code="200",method="GET"} 1',
        "",
        "# HELP test_reused_total Reused, no labels",
        "# TYPE test_reused_total counter",
        "test_reused_total 1",
        "",
        "# HELP test_depth Current depth by queue",
        "# TYPE test_depth gauge",
        'test_depth{name="q"} 3',
        "",
        "# HELP test_latency_seconds Latency by code",
        "# TYPE test_latency_seconds histogram",
        'test_latency_seconds_bucket{le="0.1",code="500"} 0',
        'test_latency_seconds_bucket{le="1",code="500"} 1',
        'test_latency_seconds_bucket{le="+Inf",code="500"} 1',
        'test_latency_seconds_sum{code="500"} 0.5',
        'test_latency_seconds_count{code="500"} 1',
        "",
        "# HELP test_wait_seconds Wait, no labels",
        "# TYPE test_wait_seconds histogram",
        'test_wait_seconds_bucket{le="0.5"} 1',
        'test_wait_seconds_bucket{le="+Inf"} 1',
        "test_wait_seconds_sum 0.25",
        "test_wait_seconds_count 1",
        "",
      ].join("\n"),
    );
    expect(globalRegistry.getSingleMetric("test_requests_total")).toBeUndefined();
  });

  it("accepts only the declared label names", () => {
    const metric = metricsIn(new Registry());
    const requests = metric.counter("test_requests_total", "Requests by code", ["code"]);
    const reused = metric.counter("test_reused_total", "Reused, no labels");
    expect(() => requests.inc({ method: "GET" } as never)).toThrow(/label "method"/);
    expect(() => reused.inc({ code: "200" })).toThrow(/label "code"/);
  });

  it("keeps prom-client's label-name types: the names given, or any string when none are", () => {
    const metric = metricsIn(new Registry());
    expectTypeOf(metric.counter("a_total", "a", ["code", "method"])).toEqualTypeOf<
      Counter<"code" | "method">
    >();
    expectTypeOf(metric.counter("b_total", "b")).toEqualTypeOf<Counter>();
    expectTypeOf(metric.gauge("c", "c", ["name"])).toEqualTypeOf<Gauge<"name">>();
    expectTypeOf(metric.histogram("d", "d", [1], ["result"])).toEqualTypeOf<Histogram<"result">>();
    expectTypeOf(metric.histogram("e", "e", [1])).toEqualTypeOf<Histogram>();
  });
});
