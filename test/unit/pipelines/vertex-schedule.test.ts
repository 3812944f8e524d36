/** A RunSchedule's policy as a Vertex Schedule, and the UpdateSchedule request an edit becomes. */
import { describe, expect, it } from "vitest";
import type { ProviderConfig, RunScheduleDefinition } from "../../../src/pipelines/backend.ts";
import { outboundPolicy } from "../../../src/pipelines/outbound-policy.ts";
import { schedulePolicy, sentSchedule } from "../../../src/pipelines/schedule-policy.ts";
import { neverEnds, schedule, scheduleUpdate } from "../../../src/pipelines/vertex/requests.ts";
import { vertexSettings } from "../../../src/pipelines/vertex/settings.ts";

const provider: ProviderConfig = {
  key: { namespace: "ml", name: "vertex" },
  spec: { type: "vertex", parameters: { project: "ml-project", location: "europe-west4" } } as never,
  version: "p1",
};
const settings = vertexSettings(provider, outboundPolicy({ ambientCredentialsNamespaces: ["*"] }));
const now = Date.parse("2026-06-01T00:00:00Z");

const definition = (
  policy: Parameters<typeof schedulePolicy>[0],
  times: { startTime?: string; endTime?: string } = {},
): RunScheduleDefinition => ({
  owner: { object: {}, kind: "RunSchedule", namespace: "team", name: "nightly" },
  pipeline: {
    owner: { object: {} as never, kind: "Pipeline", namespace: "team", name: "train" },
    name: "train",
    version: "v1",
    spec: { provider: "ml/vertex", image: "alpine", steps: [{ name: "train" }] } as never,
  },
  parameters: [],
  artifacts: [],
  schedule: { cronExpression: "@daily", ...times },
  ...schedulePolicy(policy),
});

describe("a vertex Schedule's policy", () => {
  it("Forbid: one job started and running at a time; Allow: maxConcurrency, else 10; catchUp queues", () => {
    expect(schedule(definition({}), provider, settings, now)).toMatchObject({
      maxConcurrentRunCount: 1,
      maxConcurrentActiveRunCount: 1,
      allowQueueing: false,
    });
    expect(
      schedule(
        definition({ concurrencyPolicy: "Allow", maxConcurrency: 3, catchUp: true }),
        provider,
        settings,
        now,
      ),
    ).toMatchObject({ maxConcurrentRunCount: 3, maxConcurrentActiveRunCount: 3, allowQueueing: true });
    expect(schedule(definition({ concurrencyPolicy: "Allow" }), provider, settings, now)).toMatchObject({
      maxConcurrentRunCount: 10,
    });
  });

  it("refuses Replace and a catch-up deadline, naming the field", () => {
    expect(() => schedule(definition({ concurrencyPolicy: "Replace" }), provider, settings, now)).toThrow(
      /^spec.concurrencyPolicy: a Vertex AI Schedule cannot stop a running job/,
    );
    expect(() =>
      schedule(definition({ catchUp: true, startingDeadlineSeconds: 60 }), provider, settings, now),
    ).toThrow(/^spec.startingDeadlineSeconds: a Vertex AI Schedule cannot bound catch-up/);
  });

  it("an edit is UpdateSchedule of the live one with every field it sets in the mask; startTime not before now", () => {
    const name = "projects/ml-project/locations/europe-west4/schedules/1";
    const past = scheduleUpdate(
      name,
      definition({}, { startTime: "2026-01-01T00:00:00Z" }),
      provider,
      settings,
      now,
    );
    expect(past.schedule).toMatchObject({
      name,
      cron: "TZ=UTC 0 0 * * *",
      startTime: { seconds: now / 1000 },
      endTime: neverEnds, // an endTime set before cannot be unset: it never comes
    });
    expect(past.updateMask.paths.sort()).toEqual(
      [
        "allow_queueing",
        "create_pipeline_job_request",
        "cron",
        "display_name",
        "end_time",
        "max_concurrent_active_run_count",
        "max_concurrent_run_count",
        "start_time",
      ].sort(),
    );
    const later = "2026-07-01T00:00:00Z";
    const future = scheduleUpdate(
      name,
      definition({}, { startTime: later, endTime: "2027-01-01T00:00:00Z" }),
      provider,
      settings,
      now,
    );
    expect(future.schedule.startTime).toEqual({ seconds: Date.parse(later) / 1000 });
    expect(future.updateMask.paths).toContain("end_time");
  });
});

describe("the schedule kfp and vertex are sent (sentSchedule)", () => {
  const unused = { replace: "never asked", startingDeadline: "never asked" };
  it("a past startTime is left out, a future one and the endTime kept", () => {
    const past = definition({}, { startTime: "2026-05-31T23:59:59Z", endTime: "2026-07-01T00:00:00Z" });
    expect(sentSchedule(past, unused, now)).toEqual({
      cronExpression: "@daily",
      endTime: "2026-07-01T00:00:00Z",
    });
    const future = definition({}, { startTime: "2026-06-01T00:00:01Z" });
    expect(sentSchedule(future, unused, now)).toEqual({
      cronExpression: "@daily",
      startTime: "2026-06-01T00:00:01Z",
    });
  });

  it("the backend's refusal of the policy is the error, naming the field", () => {
    const refusals = { replace: "no Replace here", startingDeadline: "no deadline here" };
    expect(() => sentSchedule(definition({ concurrencyPolicy: "Replace" }), refusals, now)).toThrow(
      /^spec.concurrencyPolicy: no Replace here$/,
    );
    expect(() => sentSchedule(definition({ startingDeadlineSeconds: 30 }), refusals, now)).toThrow(
      /^spec.startingDeadlineSeconds: no deadline here$/,
    );
  });
});
