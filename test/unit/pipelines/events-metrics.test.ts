import { describe, expect, it } from "vitest";
import type { AttemptOutcome } from "../../../src/pipelines/events/delivery.ts";
import { newDeliveryRecord } from "../../../src/pipelines/events/delivery.ts";
import { EventDispatcher } from "../../../src/pipelines/events/dispatcher.ts";
import { completionEventId, runCompletionType } from "../../../src/pipelines/events/event.ts";
import { resolveSinks } from "../../../src/pipelines/events/sinks.ts";

const recordedAt = Date.parse("2026-01-01T00:00:00Z");
const identity = { provider: { namespace: "ml", name: "argo" }, run: { namespace: "team", name: "r" } };
const [healthy, flaky, refusing] = ["http://a/e", "http://b/e", "http://c/e"];
const type = runCompletionType;

/** Every value of one metric for this type, as `sink → value` (histograms: `sink_count`, `sink_sum`). */
async function values(dispatcher: EventDispatcher, name: string): Promise<Record<string, number>> {
  const metric = dispatcher.metrics.registry.getSingleMetric(name);
  const result: Record<string, number> = {};
  for (const value of (await metric?.get())?.values ?? []) {
    const suffix = ((value as { metricName?: string }).metricName ?? name).slice(name.length);
    if (value.labels.type === type && suffix !== "_bucket")
      result[`${value.labels.sink}${suffix}`] = value.value;
  }
  return result;
}

describe("event metrics, by sink and type", () => {
  it("count published, retried and failed attempts, and the delivery latency from the completion's record", async () => {
    let now = recordedAt + 1_500;
    let flakyAnswers = 0;
    const send = async (sink: { url?: string }): Promise<AttemptOutcome> => {
      if (sink.url === refusing) return { ok: false, error: "HTTP 400 Bad Request", permanent: true };
      if (sink.url === flaky && flakyAnswers++ === 0) return { ok: false, error: "HTTP 503" };
      return { ok: true };
    };
    const dispatcher = new EventDispatcher(
      { retry: { baseMs: 1_000, maxMs: 1_000, maxAttempts: 5 } },
      { send, now: () => now },
    );
    const sinks = resolveSinks([healthy, flaky, refusing].map((url) => ({ url })));
    const record = newDeliveryRecord(
      { id: completionEventId("uid", "run-1"), type, runId: "run-1", state: "Succeeded" },
      [...sinks.keys()],
      recordedAt,
    );
    const first = await dispatcher.deliver(identity, [record], sinks);
    now = recordedAt + 3_000;
    await dispatcher.deliver(identity, first, sinks);

    expect(await values(dispatcher, "slipway_pipeline_events_published_total")).toEqual({
      [healthy]: 1,
      [flaky]: 1,
    });
    expect(await values(dispatcher, "slipway_pipeline_events_retried_total")).toEqual({ [flaky]: 1 });
    expect(await values(dispatcher, "slipway_pipeline_events_failed_total")).toEqual({ [refusing]: 1 });
    expect(await values(dispatcher, "slipway_pipeline_event_delivery_seconds")).toEqual({
      [`${healthy}_count`]: 1,
      [`${healthy}_sum`]: 1.5,
      [`${flaky}_count`]: 1,
      [`${flaky}_sum`]: 3,
    });
  });
});
