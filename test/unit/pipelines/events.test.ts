import { type CloudEvent, HTTP } from "cloudevents";
import { describe, expect, it } from "vitest";
import type { Run } from "../../../src/apis/pipelines/run.ts";
import {
  afterAttempt,
  allSettled,
  eventsCondition,
  isDue,
  later,
  newDeliveryRecord,
  nextRetryInMs,
  type RetryPolicy,
  retryDelayMs,
  type SinkDelivery,
} from "../../../src/pipelines/events/delivery.ts";
import { EventDispatcher } from "../../../src/pipelines/events/dispatcher.ts";
import {
  completionEventId,
  type DeliveryRecord,
  runCompletionEvent,
  runCompletionType,
} from "../../../src/pipelines/events/event.ts";
import { resolveSinks, sinkName } from "../../../src/pipelines/events/sinks.ts";
import { completed } from "../../../src/pipelines/run-completion.ts";

const now = Date.parse("2026-01-01T00:00:00Z");
const policy: RetryPolicy = { baseMs: 1_000, maxMs: 8_000, maxAttempts: 5 };
const identity = {
  provider: { namespace: "ml", name: "argo" },
  run: { namespace: "team", name: "train-1" },
  runConfiguration: { namespace: "team", name: "train" },
};
const record = (sinks = ["http://127.0.0.1:1/a"]): DeliveryRecord =>
  newDeliveryRecord(
    {
      id: completionEventId("uid-1", "team.train-1"),
      type: runCompletionType,
      runId: "team.train-1",
      state: "Succeeded",
      startedAt: "2025-12-31T23:00:00Z",
      finishedAt: "2025-12-31T23:59:00Z",
      artifacts: [{ name: "model", location: "s3://models/m1.tgz" }],
    },
    sinks,
    now,
  );

describe("the run-completion CloudEvent", () => {
  it("passes the SDK's own HTTP binary-mode parser with every field", () => {
    const message = HTTP.binary(runCompletionEvent(identity, record()));
    expect(message.headers["ce-specversion"]).toBe("1.0");
    const parsed = HTTP.toEvent(message) as CloudEvent<unknown> | CloudEvent<unknown>[];
    if (Array.isArray(parsed)) throw new Error("one event expected");
    expect(parsed.validate()).toBe(true);
    expect(parsed).toMatchObject({
      specversion: "1.0",
      type: "dev.slipway.pipelines.run-completion",
      id: completionEventId("uid-1", "team.train-1"),
      source: "/apis/pipelines.slipway.dev/v1beta1/namespaces/ml/providers/argo",
      subject: "namespaces/team/runs/train-1/completions/team.train-1",
      datacontenttype: "application/json",
    });
    expect(parsed.data).toEqual({
      ...identity,
      runId: "team.train-1",
      status: "Succeeded",
      startedAt: "2025-12-31T23:00:00Z",
      finishedAt: "2025-12-31T23:59:00Z",
      artifacts: [{ name: "model", location: "s3://models/m1.tgz" }],
    });
  });

  it("has one id per completion: the same for every retry, another for another run or resource", () => {
    const first = runCompletionEvent(identity, record()).id;
    const retried = runCompletionEvent(identity, { ...record(), sinks: [] }).id;
    expect(retried).toBe(first);
    expect(completionEventId("uid-1", "team.train-2")).not.toBe(first);
    expect(completionEventId("uid-2", "team.train-1")).not.toBe(first);
    expect(first).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe("sinks", () => {
  it("are named without a URL's query (no token reaches status or metrics) and counted once", () => {
    expect(sinkName({ url: "https://broker.example/ns/default?token=s3cret#x" })).toBe(
      "https://broker.example/ns/default",
    );
    expect(sinkName({ nats: { server: "nats://127.0.0.1:4222", subject: "runs.done" } })).toBe(
      "nats://127.0.0.1:4222/runs.done",
    );
    const sinks = resolveSinks(
      [{ url: "http://a/x" }],
      [{ url: "http://b/y" }, { url: "http://a/x" }],
      undefined,
    );
    expect([...sinks.keys()]).toEqual(["http://a/x", "http://b/y"]);
  });
});

const fresh = (): SinkDelivery => ({ sink: "s", delivered: false, attempts: 0 });

describe("delivery state machine", () => {
  it("fails three times with a doubling delay, then is delivered (never due again)", () => {
    let delivery = fresh();
    const delays: number[] = [];
    let at = now;
    for (let i = 0; i < 3; i++) {
      expect(isDue(delivery, at)).toBe(true);
      delivery = afterAttempt(delivery, { ok: false, error: "HTTP 503" }, at, policy);
      delays.push(Date.parse(delivery.retryAt ?? "") - at);
      expect(isDue(delivery, at)).toBe(false);
      at = Date.parse(delivery.retryAt ?? "");
    }
    expect(delays).toEqual([1_000, 2_000, 4_000]);
    expect(delivery).toMatchObject({ attempts: 3, lastError: "HTTP 503", delivered: false });
    delivery = afterAttempt(delivery, { ok: true }, at, policy);
    expect(delivery).toEqual({
      sink: "s",
      delivered: true,
      attempts: 4,
      deliveredAt: new Date(at).toISOString(),
    });
    expect(isDue(delivery, at + 1e9)).toBe(false);
  });

  it("bounds the delay and gives up after maxAttempts, or at once when the sink refuses the event", () => {
    expect([1, 2, 3, 4, 5, 9].map((n) => retryDelayMs(policy, n))).toEqual([
      1000, 2000, 4000, 8000, 8000, 8000,
    ]);
    let delivery = fresh();
    for (let i = 0; i < policy.maxAttempts; i++)
      delivery = afterAttempt(delivery, { ok: false, error: "x" }, now, policy);
    expect(delivery).toMatchObject({ failed: true, attempts: 5 });
    expect(delivery.retryAt).toBeUndefined();
    expect(isDue(delivery, now + 1e9)).toBe(false);
    const refused = afterAttempt(fresh(), { ok: false, error: "HTTP 400", permanent: true }, now, policy);
    expect(refused).toMatchObject({ failed: true, attempts: 1 });
  });

  it("prefers this process's last decision over an older cached copy, never the other way", () => {
    const delivered = afterAttempt(fresh(), { ok: true }, now, policy);
    const failedOnce = afterAttempt(fresh(), { ok: false, error: "x" }, now, policy);
    expect(later(fresh(), delivered)).toBe(delivered);
    expect(later(fresh(), failedOnce)).toBe(failedOnce);
    expect(later(delivered, failedOnce)).toBe(delivered);
    expect(later(failedOnce, undefined)).toBe(failedOnce);
  });

  it("reports EventsDelivered: Pending, Retrying, SinkFailed (others unaffected), Delivered", () => {
    const r = record(["a", "b"]);
    expect(eventsCondition([r])).toMatchObject({ status: "Unknown", reason: "Pending" });
    const retrying = {
      ...r,
      sinks: [
        afterAttempt(r.sinks[0] as SinkDelivery, { ok: false, error: "HTTP 503" }, now, policy),
        r.sinks[1] as SinkDelivery,
      ],
    };
    expect(eventsCondition([retrying])).toMatchObject({ status: "Unknown", reason: "Retrying" });
    expect(nextRetryInMs([retrying], now)).toBe(0); // b is still due now
    const failed = {
      ...r,
      sinks: [
        { ...(r.sinks[0] as SinkDelivery), failed: true, attempts: 5, lastError: "HTTP 503" },
        afterAttempt(r.sinks[1] as SinkDelivery, { ok: true }, now, policy),
      ],
    };
    expect(eventsCondition([failed])).toMatchObject({
      status: "False",
      reason: "SinkFailed",
      message: expect.stringContaining("to a: gave up after 5 attempt(s): HTTP 503"),
    });
    expect(allSettled([failed])).toBe(true);
    expect(allSettled([retrying])).toBe(false);
    const done = { ...r, sinks: r.sinks.map((d) => afterAttempt(d, { ok: true }, now, policy)) };
    expect(eventsCondition([done])).toMatchObject({
      status: "True",
      reason: "Delivered",
      message: "1 event(s) delivered to 2 sink(s)",
    });
    expect(nextRetryInMs([done], now)).toBeUndefined();
  });
});

describe("the dispatcher", () => {
  it("does not send an acknowledged event again from a cached copy that predates its write", async () => {
    const sent: string[] = [];
    const dispatcher = new EventDispatcher(
      { retry: policy },
      {
        send: async (sink, event) => {
          sent.push(`${sink.url} ${event.id}`);
          return { ok: true };
        },
        now: () => now,
      },
    );
    const stale = record(["http://a/x"]);
    const sinks = resolveSinks([{ url: "http://a/x" }]);
    const first = await dispatcher.deliver(identity, [stale], sinks);
    expect(first[0]?.sinks[0]).toMatchObject({ delivered: true, attempts: 1 });
    const again = await dispatcher.deliver(identity, [stale], sinks);
    expect(again[0]?.sinks[0]).toMatchObject({ delivered: true, attempts: 1 });
    expect(sent).toEqual([`http://a/x ${stale.id}`]);
  });

  it("gives up on a sink that is no longer configured, without sending", async () => {
    const dispatcher = new EventDispatcher({}, { send: async () => ({ ok: true }), now: () => now });
    const [after] = await dispatcher.deliver(identity, [record(["http://gone/x"])], new Map());
    expect(after?.sinks[0]).toMatchObject({ failed: true, lastError: "the sink is no longer configured" });
  });
});

const run = (status: Run["status"] = {}): Run =>
  ({
    apiVersion: "pipelines.slipway.dev/v1beta1",
    kind: "Run",
    metadata: { name: "train-1", namespace: "team", uid: "uid-1" },
    spec: { provider: "ml/argo", pipeline: "train" },
    status: { provider: { name: "ml/argo", id: "team.train-1" }, state: "Succeeded", ...status },
  }) as Run;

describe("a Run's completion records its event with the completion", () => {
  const timing = { defaultTtlSeconds: 0, pollMs: 1000 };
  const completion = { state: "Succeeded" as const, finishedAt: "2025-12-31T23:59:00Z", artifacts: [] };

  it("one record, every sink pending, in the same status as completionState; back soon to deliver", () => {
    const settled = completed(run(), completion, now, { ...timing, sinks: ["a", "b"] });
    const events = (settled.status as { events: DeliveryRecord[] }).events;
    expect(settled.status).toMatchObject({ completionState: "Succeeded" });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      id: completionEventId("uid-1", "team.train-1"),
      runId: "team.train-1",
      state: "Succeeded",
    });
    expect(events[0]?.sinks.map((s) => [s.sink, s.delivered])).toEqual([
      ["a", false],
      ["b", false],
    ]);
    expect(settled.requeueAfterMs).toBe(50);
    expect(settled.expired).toBe(false); // TTL 0, but the event is not delivered yet
  });

  it("no sinks: no record, and the Run expires as before", () => {
    const settled = completed(run(), completion, now, timing);
    expect(settled.status?.events).toBeUndefined();
    expect(settled.expired).toBe(true);
  });
});
