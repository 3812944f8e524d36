import { describe, expect, it } from "vitest";
import { kfpRunObservation } from "../../../src/pipelines/kfp/completion.ts";
import { vertexRunObservation } from "../../../src/pipelines/vertex/requests.ts";

const steps = ["prepare", "train"];

describe("kfp and vertex runs' steps, from their run details", () => {
  it("kfp: the tasks of the pipeline's steps only (not the root DAG), their phases and times; a zero time is not reached", () => {
    const observed = kfpRunObservation(
      {
        state: "RUNNING",
        run_details: {
          task_details: [
            { display_name: "root", state: "RUNNING", start_time: "2026-01-01T00:00:01Z" },
            {
              display_name: "prepare",
              state: "SUCCEEDED",
              start_time: "2026-01-01T00:00:05Z",
              end_time: "2026-01-01T00:00:20Z",
            },
            {
              display_name: "train",
              state: "CANCELING",
              start_time: "2026-01-01T00:00:21Z",
              end_time: "1970-01-01T00:00:00Z",
            },
          ],
        },
      },
      [],
      steps,
    );
    expect(observed).toEqual({
      state: "Running",
      steps: [
        {
          name: "prepare",
          phase: "Succeeded",
          startedAt: "2026-01-01T00:00:05Z",
          finishedAt: "2026-01-01T00:00:20Z",
        },
        { name: "train", phase: "Running", startedAt: "2026-01-01T00:00:21Z" },
      ],
    });
  });

  it("kfp: a failed run names its failed step, else KFP's message about the run", () => {
    const failedStep = kfpRunObservation(
      {
        state: "FAILED",
        run_details: {
          task_details: [{ display_name: "train", state: "FAILED", error: { message: "OOMKilled" } }],
        },
      },
      [],
      steps,
    );
    expect(failedStep).toMatchObject({ state: "Failed", failure: "step train failed: OOMKilled" });
    const noStep = kfpRunObservation({ state: "CANCELED", error: { message: "run canceled" } }, [], steps);
    expect(noStep).toMatchObject({ state: "Failed", failure: "the run failed: run canceled" });
    expect(noStep).not.toHaveProperty("steps");
  });

  it("vertex: the step tasks' states and Timestamps; NOT_TRIGGERED is Skipped; a failed job names its step", () => {
    const observed = vertexRunObservation(
      {
        state: "PIPELINE_STATE_FAILED",
        jobDetail: {
          taskDetails: [
            { taskName: "train-pipeline", state: "FAILED" },
            {
              taskName: "prepare",
              state: "FAILED",
              startTime: { seconds: "1767225605" },
              endTime: { seconds: 1767225612 },
              error: { message: "exit 3" },
            },
            { taskName: "train", state: "NOT_TRIGGERED" },
          ],
        },
      },
      [],
      steps,
    );
    expect(observed).toMatchObject({
      state: "Failed",
      steps: [
        {
          name: "prepare",
          phase: "Failed",
          startedAt: "2026-01-01T00:00:05.000Z",
          finishedAt: "2026-01-01T00:00:12.000Z",
          message: "exit 3",
        },
        { name: "train", phase: "Skipped" },
      ],
      failure: "step prepare failed: exit 3",
    });
  });
});
