import { describe, expect, it } from "vitest";
import type { Run } from "../../../src/apis/pipelines/run.ts";
import type { ProviderConfig, RunCompletion } from "../../../src/pipelines/backend.ts";
import { type Buildable, blocked, ready } from "../../../src/pipelines/blockers.ts";
import { runKind } from "../../../src/pipelines/controllers/run.ts";
import type { SyncedResource } from "../../../src/pipelines/sync/kind.ts";
import { planSync, type SyncCommand, type SyncObservation } from "../../../src/pipelines/sync/plan.ts";
import type { Outcome, Recorded, SyncInput } from "../../../src/pipelines/sync/state-machine.ts";
import { type SharedStatus, statusOf } from "../../../src/pipelines/sync/status.ts";
import { synced } from "./fixtures.ts";

const now = Date.parse("2026-01-01T00:00:00Z");
const provider: ProviderConfig = {
  key: { namespace: "ml", name: "argo" },
  spec: { type: "argo" },
  version: "p1",
};
const statusFrom = (recorded: Recorded, message = "") =>
  statusOf(recorded, undefined, { message }, undefined, new Date(now));

function observation(
  input: Partial<SyncInput> = {},
  build: Buildable<string> | undefined = ready("definition"),
  previous?: SharedStatus,
): SyncObservation<string> {
  return {
    input: {
      generation: 1,
      deleting: false,
      finalizerPresent: true,
      needsFinalizer: false,
      provider: "ml/argo",
      version: "v1",
      providerVersion: "p1",
      recorded: {},
      now,
      ...input,
    },
    previous,
    provider,
    build,
  };
}

interface Answers {
  outcome?: Outcome;
  completion?: RunCompletion;
}

/** The commands as the reconciler would execute them, given what the backend answers. */
function executed(commands: SyncCommand<unknown>[], answers: Answers = {}): string[] {
  return commands.flatMap((command): string[] => {
    switch (command.type) {
      case "CallBackend":
        return [
          `CallBackend ${command.operation.type}`,
          ...executed(command.next(answers.outcome ?? { ok: true, id: "wt-9" }), answers),
        ];
      case "PollCompletion":
        return [`PollCompletion ${command.poll.id}`, ...executed(command.next(answers.completion), answers)];
      case "SetStatus": {
        const event = command.events?.map((e) => ` +${e.type} ${e.reason}`).join("") ?? "";
        const completion = (command.status as { completionState?: string }).completionState;
        return [`SetStatus ${command.status.state}${completion ? `/${completion}` : ""}${event}`];
      }
      case "Requeue":
        return [`Requeue ${command.afterMs}`];
      default:
        return [command.type];
    }
  });
}

const resource = { metadata: { name: "r", namespace: "ml" }, spec: { provider: "argo" } } as SyncedResource;
const plain = {};

const table: [string, SyncObservation<string>, Answers, string[]][] = [
  [
    "new, finalizer needed → add it, create, Succeeded with its Event",
    observation({ finalizerPresent: false, needsFinalizer: true }),
    {},
    ["AddFinalizer", "CallBackend create", "SetStatus Succeeded +Normal Succeeded"],
  ],
  ["in sync → the status only, no Event", observation({ recorded: synced }), {}, ["SetStatus Succeeded"]],
  [
    "spec changed → update",
    observation({ version: "v2", recorded: synced }),
    {},
    ["CallBackend update", "SetStatus Succeeded +Normal Succeeded"],
  ],
  [
    "provider changed → move",
    observation({ provider: "b/argo", recorded: synced }),
    {},
    ["CallBackend move", "SetStatus Succeeded +Normal Succeeded"],
  ],
  [
    "provider blocker → Failed with a Warning, no requeue (the Provider is watched)",
    observation({ providerProblem: { reason: "ProviderNotFound", message: "gone" } }, undefined),
    {},
    ["SetStatus Failed +Warning Failed"],
  ],
  [
    "definition blocker → Failed with a Warning, polled",
    observation({}, blocked("PipelineNotFound", "spec.pipeline: Pipeline p does not exist")),
    {},
    ["SetStatus Failed +Warning Failed", "Requeue 30000"],
  ],
  [
    "never synchronized, its Pipeline not synchronized yet → no state (Pending), a Normal Event, polled",
    observation({}, blocked("PipelineNotSynchronized", "spec.pipeline: Pipeline p is not synchronized yet")),
    {},
    ["SetStatus undefined +Normal Waiting", "Requeue 30000"],
  ],
  [
    "never synchronized, its Provider not Ready yet → no state (Pending), a Normal Event, no requeue (watched)",
    observation({ providerProblem: { reason: "ProviderNotReady", message: "not Ready" } }, undefined),
    {},
    ["SetStatus undefined +Normal Waiting"],
  ],
  [
    "still waiting with the same message → no second Event",
    observation(
      {},
      blocked("PipelineNotSynchronized", "same"),
      statusFrom({ observedGeneration: 1 }, "same"),
    ),
    {},
    ["SetStatus undefined", "Requeue 30000"],
  ],
  [
    "once synchronized, a Provider not Ready is a failure again (Failed with a Warning)",
    observation(
      {
        recorded: { state: "Failed", observedGeneration: 1 },
        providerProblem: { reason: "ProviderNotReady", message: "down" },
      },
      undefined,
    ),
    {},
    ["SetStatus Failed +Warning Failed"],
  ],
  [
    "the same definition blocker again → no second Event",
    observation(
      { recorded: { state: "Failed", observedGeneration: 1 } },
      blocked("PipelineNotFound", "same"),
      statusFrom({ state: "Failed", observedGeneration: 1 }, "same"),
    ),
    {},
    ["SetStatus Failed", "Requeue 30000"],
  ],
  [
    "a definition blocker does not stop a resource in sync",
    observation({ recorded: synced }, blocked("PipelineNotFound", "x")),
    {},
    ["SetStatus Succeeded"],
  ],
  [
    "backend failure → Failed with a Warning, retried after the backoff",
    observation(),
    { outcome: { ok: false, error: "boom" } },
    ["CallBackend create", "SetStatus Failed +Warning Failed", "Requeue 5000"],
  ],
  [
    "backing off → the status as it is, back when the backoff ends",
    observation({
      recorded: { state: "Failed", failedAttempts: 1, retryAt: now + 4000, observedGeneration: 1 },
    }),
    {},
    ["SetStatus Failed", "Requeue 4000"],
  ],
  [
    "deleting, created → delete in the backend, Deleted, then the finalizer goes",
    observation({ deleting: true, recorded: synced }, undefined),
    {},
    ["CallBackend delete", "SetStatus Deleted +Normal Deleted", "RemoveFinalizer"],
  ],
  [
    "deleting, never created → the finalizer goes",
    observation({ deleting: true }, undefined),
    {},
    ["RemoveFinalizer"],
  ],
  [
    "deleting without our finalizer → nothing",
    observation({ deleting: true, finalizerPresent: false, recorded: synced }, undefined),
    {},
    [],
  ],
];

describe("planSync (commands of the synchronized kinds)", () => {
  it.each(table)("%s", (_name, observed, answers, expected) => {
    expect(executed(planSync(plain, resource, observed), answers)).toEqual(expected);
  });
});

const kind = runKind({ completionPollSeconds: 60, defaultTtlSeconds: 3600 });
const run = (status: Partial<NonNullable<Run["status"]>> = {}): Run =>
  ({
    apiVersion: "pipelines.slipway.dev/v1beta1",
    kind: "Run",
    metadata: { name: "r", namespace: "ml", generation: 1 },
    spec: { provider: "argo", pipeline: "p" },
    status: { ...statusFrom(synced), ...status },
  }) as Run;
const succeeded: RunCompletion = { state: "Succeeded", artifacts: [{ name: "model", location: "s3://m/1" }] };
const runTable: [string, Run, Partial<SyncInput>, Answers, string[]][] = [
  [
    "just submitted → no Event (the status says it), no poll yet: its first comes one interval later",
    run({ state: undefined, provider: undefined }),
    { recorded: {} },
    {},
    ["CallBackend create", "SetStatus Succeeded", "Requeue 60000"],
  ],
  [
    "a submission that fails → its Warning Event, retried after the backoff",
    run({ state: undefined, provider: undefined }),
    { recorded: {} },
    { outcome: { ok: false, error: "503 Service Unavailable" } },
    ["CallBackend create", "SetStatus Failed +Warning Failed", "Requeue 5000"],
  ],
  [
    "running → poll, nothing new, poll again",
    run(),
    { recorded: synced },
    {},
    ["PollCompletion wt-1", "SetStatus Succeeded", "Requeue 60000"],
  ],
  [
    "finished → its completion and RunSucceeded written together, deleted after its TTL",
    run(),
    { recorded: synced },
    { completion: succeeded },
    ["PollCompletion wt-1", "SetStatus Succeeded/Succeeded +Normal RunSucceeded", "Requeue 3600000"],
  ],
  [
    "failed → RunFailed with the write",
    run(),
    { recorded: synced },
    { completion: { state: "Failed", artifacts: [] } },
    ["PollCompletion wt-1", "SetStatus Succeeded/Failed +Warning RunFailed", "Requeue 3600000"],
  ],
  [
    "completed long ago → deleted (no poll)",
    run({ completionState: "Succeeded", completedAt: "2025-12-31T22:00:00Z" }),
    { recorded: synced },
    {},
    ["SetStatus Succeeded/Succeeded", "DeleteSelf"],
  ],
  [
    "completed recently → back when its TTL ends",
    run({ completionState: "Succeeded", completedAt: "2025-12-31T23:30:00Z" }),
    { recorded: synced },
    {},
    ["SetStatus Succeeded/Succeeded", "Requeue 1800000"],
  ],
];

/** What a Run's definition holds that its follow reads: the pipeline's steps. */
const runDefinition = ready({
  pipeline: { spec: { steps: [{ name: "prepare" }, { name: "train" }] } },
} as never);

describe("planSync for a Run (completion is an observation)", () => {
  it.each(runTable)("%s", (_name, resource, input, answers, expected) => {
    const observed = {
      ...observation(input, runDefinition),
      previous: resource.status,
    } as SyncObservation<never>;
    expect(executed(planSync(kind, resource, observed), answers)).toEqual(expected);
  });

  it("a completion's status carries its artifacts and when it was marked; the poll asks for the pipeline's steps", () => {
    const observed = {
      ...observation({ recorded: synced }, runDefinition),
      previous: run().status,
    } as SyncObservation<never>;
    const [poll] = planSync(kind, run(), observed);
    if (poll?.type !== "PollCompletion") throw new Error("expected a poll");
    expect(poll.poll.wanted.steps).toEqual(["prepare", "train"]);
    const [write] = poll.next(succeeded);
    expect(write).toMatchObject({
      type: "SetStatus",
      status: {
        completionState: "Succeeded",
        completedAt: "2026-01-01T00:00:00Z",
        artifacts: succeeded.artifacts,
      },
    });
  });
});
