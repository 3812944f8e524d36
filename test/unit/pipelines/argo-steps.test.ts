/** A Run's steps and failure from its Workflow's `status.nodes` (src/pipelines/argo/steps.ts, completion.ts). */
import { describe, expect, it } from "vitest";
import type { Run } from "../../../src/apis/pipelines/run.ts";
import { sameJson } from "../../../src/lib/canonical.ts";
import { runCompletion, runObservation } from "../../../src/pipelines/argo/completion.ts";
import { runSteps } from "../../../src/pipelines/argo/steps.ts";
import { finishedRun, runFailure } from "../../../src/pipelines/run-steps.ts";

const argo = { backend: "Argo", run: "workflow" };

import { completed } from "../../../src/pipelines/run-completion.ts";

/**
 * The status Argo's controller writes for the Workflow of a two-step Run (`prepare` → `train`) whose
 * `train` exited 3: the DAG node (the entrypoint template `pipeline`) and a Pod node per task, with
 * the fields Argo fills (null times it has not reached, the executor's `main-logs` artifact…).
 */
const failedWorkflow = {
  phase: "Failed",
  startedAt: "2026-03-01T10:00:00Z",
  finishedAt: "2026-03-01T10:01:05Z",
  message: "child 'team.once-2837109383' failed",
  progress: "1/2",
  nodes: {
    "team.once": {
      id: "team.once",
      name: "team.once",
      displayName: "team.once",
      type: "DAG",
      templateName: "pipeline",
      templateScope: "local/team.once",
      phase: "Failed",
      startedAt: "2026-03-01T10:00:00Z",
      finishedAt: "2026-03-01T10:01:05Z",
      progress: "1/2",
      children: ["team.once-1340600742"],
      outboundNodes: ["team.once-2837109383"],
    },
    "team.once-1340600742": {
      id: "team.once-1340600742",
      name: "team.once.prepare",
      displayName: "prepare",
      type: "Pod",
      templateName: "step-prepare",
      templateScope: "local/team.once",
      phase: "Succeeded",
      boundaryID: "team.once",
      startedAt: "2026-03-01T10:00:00Z",
      finishedAt: "2026-03-01T10:00:31Z",
      progress: "1/1",
      resourcesDuration: { cpu: 2, memory: 19 },
      hostNodeName: "node-1",
      podIP: "10.244.0.12",
      children: ["team.once-2837109383"],
      outputs: {
        artifacts: [
          { name: "main-logs", s3: { key: "argo/team.once/team.once-step-prepare-1340600742/main.log" } },
        ],
        exitCode: "0",
      },
      taskResultSynced: true,
    },
    "team.once-2837109383": {
      id: "team.once-2837109383",
      name: "team.once.train",
      displayName: "train",
      type: "Pod",
      templateName: "step-train",
      templateScope: "local/team.once",
      phase: "Failed",
      boundaryID: "team.once",
      message: "Error (exit code 3)",
      startedAt: "2026-03-01T10:00:35Z",
      finishedAt: "2026-03-01T10:01:02Z",
      progress: "0/1",
      hostNodeName: "node-1",
      outputs: {
        artifacts: [
          { name: "main-logs", s3: { key: "argo/team.once/team.once-step-train-2837109383/main.log" } },
        ],
        exitCode: "3",
      },
      taskResultSynced: true,
    },
  },
};

describe("a Run's steps from Argo's node statuses", () => {
  it("a DAG of two tasks, one failed with an exit code: each step, and the failure naming it", () => {
    const completion = runCompletion(failedWorkflow, []);
    expect(completion).toEqual({
      state: "Failed",
      startedAt: "2026-03-01T10:00:00Z",
      finishedAt: "2026-03-01T10:01:05Z",
      artifacts: [],
      steps: [
        {
          name: "prepare",
          phase: "Succeeded",
          startedAt: "2026-03-01T10:00:00Z",
          finishedAt: "2026-03-01T10:00:31Z",
          exitCode: 0,
        },
        {
          name: "train",
          phase: "Failed",
          startedAt: "2026-03-01T10:00:35Z",
          finishedAt: "2026-03-01T10:01:02Z",
          exitCode: 3,
          message: "Error (exit code 3)",
        },
      ],
      failure: "step train failed: Error (exit code 3)",
    });
  });

  it("while it runs: the steps so far; a retried task counts its attempts, not as steps of their own; an omitted one is Skipped", () => {
    const retried = {
      phase: "Running",
      startedAt: "2026-03-01T10:00:00Z",
      finishedAt: null,
      nodes: {
        root: {
          id: "root",
          name: "w",
          displayName: "w",
          type: "DAG",
          templateName: "pipeline",
          phase: "Running",
        },
        r: {
          id: "r",
          name: "w.train",
          displayName: "train",
          type: "Retry",
          templateName: "step-train",
          phase: "Running",
          boundaryID: "root",
          startedAt: "2026-03-01T10:00:01Z",
          finishedAt: null,
          children: ["a0", "a1"],
        },
        a0: {
          id: "a0",
          name: "w.train(0)",
          displayName: "train(0)",
          type: "Pod",
          templateName: "step-train",
          phase: "Failed",
          boundaryID: "root",
          message: "Error (exit code 1)",
          startedAt: "2026-03-01T10:00:01Z",
          finishedAt: "2026-03-01T10:00:09Z",
          nodeFlag: { retried: true },
          outputs: { exitCode: "1" },
        },
        a1: {
          id: "a1",
          name: "w.train(1)",
          displayName: "train(1)",
          type: "Pod",
          templateName: "step-train",
          phase: "Running",
          boundaryID: "root",
          startedAt: "2026-03-01T10:00:19Z",
          finishedAt: null,
          nodeFlag: { retried: true },
        },
        o: {
          id: "o",
          name: "w.evaluate",
          displayName: "evaluate",
          type: "Skipped",
          templateName: "step-evaluate",
          phase: "Omitted",
          boundaryID: "root",
          message: "omitted: depends condition not met",
        },
      },
    };
    expect(runObservation(retried, [])).toEqual({
      state: "Running",
      steps: [
        { name: "train", phase: "Running", startedAt: "2026-03-01T10:00:01Z", retries: 1 },
        { name: "evaluate", phase: "Skipped", message: "omitted: depends condition not met" },
      ],
    });
  });

  it("Argo's Error is Failed; an unknown or missing phase is Pending; a long message is cut", () => {
    const node = (phase: string | undefined, message?: string) => ({
      n: {
        displayName: "s",
        templateName: "step-s",
        ...(phase ? { phase } : {}),
        ...(message ? { message } : {}),
      },
    });
    expect(runSteps(node("Error"))[0]?.phase).toBe("Failed");
    expect(runSteps(node(undefined))[0]?.phase).toBe("Pending");
    expect(runSteps(node("Running", "x".repeat(5000)))[0]?.message).toHaveLength(1024);
  });

  it("a failure no step had is the Workflow's message; an exit code the message lacks is added", () => {
    expect(runFailure([], "Pod was active on the node longer than the specified deadline", argo)).toBe(
      "the workflow failed: Pod was active on the node longer than the specified deadline",
    );
    expect(
      runFailure([{ name: "train", phase: "Failed", exitCode: 137, message: "OOMKilled" }], undefined, argo),
    ).toBe("step train failed: OOMKilled (exit code 137)");
  });

  it("a finished run (any backend): steps only where recorded, a failure line only when it failed, no empty times", () => {
    const artifacts = [{ name: "model", location: "s3://b/model" }];
    expect(
      finishedRun({ succeeded: true, startedAt: null, finishedAt: "", artifacts, steps: [], said: argo }),
    ).toEqual({ state: "Succeeded", artifacts });
    const train = { name: "train", phase: "Failed" as const, message: "OOMKilled" };
    expect(
      finishedRun({
        succeeded: false,
        startedAt: "2026-01-01T00:00:00Z",
        finishedAt: "2026-01-01T00:01:00Z",
        artifacts: [],
        steps: [train],
        runMessage: "child failed",
        said: argo,
      }),
    ).toEqual({
      state: "Failed",
      startedAt: "2026-01-01T00:00:00Z",
      finishedAt: "2026-01-01T00:01:00Z",
      artifacts: [],
      steps: [train],
      failure: "step train failed: OOMKilled",
    });
  });
});

describe("a Run's status from each poll of its Workflow", () => {
  const now = Date.parse("2026-03-01T10:02:00Z");
  const timing = { defaultTtlSeconds: 3600, pollMs: 1000 };
  const run = (status: Run["status"] = {}): Run =>
    ({
      apiVersion: "pipelines.slipway.dev/v1beta1",
      kind: "Run",
      metadata: { name: "once", namespace: "team", uid: "uid-1" },
      spec: { provider: "team/argo", pipeline: "train" },
      status: { provider: { name: "team/argo", id: "team.once" }, state: "Succeeded", ...status },
    }) as Run;
  const steps = runSteps(failedWorkflow.nodes);

  it("while it runs: the steps so far; the same steps again are the same status (the writer sends nothing)", () => {
    const first = completed(run(), { state: "Running", steps }, now, timing);
    expect(first.status).toEqual({ steps });
    const again = completed(run({ steps }), { state: "Running", steps }, now, timing);
    expect(sameJson(again.status, first.status)).toBe(true);
    // no steps yet: nothing to write either
    expect(completed(run(), { state: "Running", steps: [] }, now, timing).status).toEqual({});
  });

  it("a failure: its steps and failure with the completion, in one write", () => {
    const completion = runCompletion(failedWorkflow, []);
    const settled = completed(run({ steps: steps.slice(0, 1) }), completion, now, timing);
    expect(settled.status).toMatchObject({
      completionState: "Failed",
      steps,
      failure: "step train failed: Error (exit code 3)",
    });
  });
});
