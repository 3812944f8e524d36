import { describe, expect, it } from "vitest";
import {
  type Action,
  decide,
  type Recorded,
  retryDelayMs,
  type SyncInput,
  settle,
} from "../../../src/pipelines/sync/state-machine.ts";
import { synced } from "./fixtures.ts";

const now = 1_000_000;

function input(overrides: Partial<SyncInput> = {}): SyncInput {
  return {
    generation: 1,
    deleting: false,
    finalizerPresent: true,
    needsFinalizer: true,
    provider: "ml/argo",
    version: "v1",
    providerVersion: "p1",
    recorded: {},
    now,
    ...overrides,
  };
}

const table: [string, Partial<SyncInput>, Action][] = [
  ["new, finalizer needed → add it", { finalizerPresent: false }, { type: "addFinalizer" }],
  [
    "new, no finalizer needed → create",
    { finalizerPresent: false, needsFinalizer: false },
    { type: "create", state: "Creating" },
  ],
  ["new → create", {}, { type: "create", state: "Creating" }],
  ["in sync → nothing", { recorded: synced }, { type: "none" }],
  [
    "spec version changed → update",
    { version: "v2", recorded: synced },
    { type: "update", state: "Updating", id: "wt-1" },
  ],
  [
    "provider config changed → update",
    { providerVersion: "p2", recorded: synced },
    { type: "update", state: "Updating", id: "wt-1" },
  ],
  [
    "provider changed → move",
    { provider: "other/kfp", recorded: synced },
    { type: "move", state: "Updating", from: { provider: "ml/argo", id: "wt-1" } },
  ],
  [
    "provider not allowed → blocked",
    { providerProblem: { reason: "ProviderNotAllowed", message: "no" }, recorded: synced },
    { type: "blocked", blocker: { reason: "ProviderNotAllowed", message: "no" } },
  ],
  [
    "provider not Ready, nothing to do in its backend → nothing (no churn while it is down)",
    { providerProblem: { reason: "ProviderNotReady", message: "down" }, recorded: synced },
    { type: "none" },
  ],
  [
    "provider not Ready and the spec changed → blocked with its reason",
    { providerProblem: { reason: "ProviderNotReady", message: "down" }, version: "v2", recorded: synced },
    { type: "blocked", blocker: { reason: "ProviderNotReady", message: "down" } },
  ],
  [
    "provider not Ready, new → blocked (waits for the Provider, no backend call)",
    { providerProblem: { reason: "ProviderNotReady", message: "down" } },
    { type: "blocked", blocker: { reason: "ProviderNotReady", message: "down" } },
  ],
  [
    "Failed, backoff not elapsed → wait",
    { recorded: { state: "Failed", failedAttempts: 1, retryAt: now + 4000, observedGeneration: 1 } },
    { type: "wait", afterMs: 4000 },
  ],
  [
    "Failed, backoff elapsed, never created → create",
    { recorded: { state: "Failed", failedAttempts: 1, retryAt: now - 1, observedGeneration: 1 } },
    { type: "create", state: "Creating" },
  ],
  [
    "Failed update, backoff elapsed → update",
    { recorded: { ...synced, state: "Failed", failedAttempts: 2, retryAt: now - 1 } },
    { type: "update", state: "Updating", id: "wt-1" },
  ],
  [
    "Failed, spec changed during backoff → retry now",
    { generation: 2, version: "v2", recorded: { ...synced, state: "Failed", retryAt: now + 60_000 } },
    { type: "update", state: "Updating", id: "wt-1" },
  ],
  [
    "deleting, created → delete",
    { deleting: true, recorded: synced },
    { type: "delete", state: "Deleting", provider: "ml/argo", id: "wt-1" },
  ],
  ["deleting, never created → remove finalizer", { deleting: true }, { type: "removeFinalizer" }],
  [
    "deleting, deleted → remove finalizer",
    { deleting: true, recorded: { ...synced, state: "Deleted" } },
    { type: "removeFinalizer" },
  ],
  [
    "deleting without finalizer → nothing",
    { deleting: true, finalizerPresent: false, recorded: synced },
    { type: "none" },
  ],
  [
    "failed delete, backoff not elapsed → wait",
    { deleting: true, recorded: { ...synced, state: "Failed", retryAt: now + 10_000 } },
    { type: "wait", afterMs: 10_000 },
  ],
  [
    "failed delete, backoff elapsed → delete again",
    { deleting: true, recorded: { ...synced, state: "Failed", retryAt: now - 1 } },
    { type: "delete", state: "Deleting", provider: "ml/argo", id: "wt-1" },
  ],
  [
    "deleting ignores a provider problem",
    { deleting: true, providerProblem: { reason: "ProviderNotFound", message: "gone" }, recorded: synced },
    { type: "delete", state: "Deleting", provider: "ml/argo", id: "wt-1" },
  ],
];

describe("decide (transition table)", () => {
  it.each(table)("%s", (_name, overrides, expected) => {
    expect(decide(input(overrides))).toEqual(expected);
  });
});

describe("settle", () => {
  it("create succeeded → Succeeded with id and versions", () => {
    const { recorded, message } = settle(
      input(),
      { type: "create", state: "Creating" },
      { ok: true, id: "wt-9" },
    );
    expect(recorded).toMatchObject({
      state: "Succeeded",
      id: "wt-9",
      version: "v1",
      provider: "ml/argo",
      failedAttempts: 0,
    });
    expect(message).toContain("wt-9");
  });

  it("move succeeded → recorded in the new provider", () => {
    const action = { type: "move", state: "Updating", from: { provider: "ml/argo", id: "wt-1" } } as const;
    const { recorded } = settle(input({ provider: "b/argo", recorded: synced }), action, {
      ok: true,
      id: "wt-2",
    });
    expect(recorded).toMatchObject({ state: "Succeeded", provider: "b/argo", id: "wt-2" });
  });

  it("delete succeeded → Deleted", () => {
    const action = { type: "delete", state: "Deleting", provider: "ml/argo", id: "wt-1" } as const;
    expect(settle(input({ deleting: true, recorded: synced }), action, { ok: true }).recorded.state).toBe(
      "Deleted",
    );
  });

  it("failures back off exponentially, bounded, and say so in the message", () => {
    let recorded: Recorded = {};
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 9; attempt++) {
      const result = settle(
        input({ recorded }),
        { type: "create", state: "Creating" },
        { ok: false, error: "boom" },
      );
      recorded = result.recorded;
      expect(recorded).toMatchObject({ state: "Failed", failedAttempts: attempt });
      expect(result.message).toBe(
        `create failed (attempt ${attempt}): boom; retrying in ${retryDelayMs(attempt) / 1000}s`,
      );
      delays.push((recorded.retryAt ?? 0) - now);
    }
    expect(delays.slice(0, 4)).toEqual([5_000, 10_000, 20_000, 40_000]);
    expect(Math.max(...delays)).toBe(300_000);
  });

  it("a failure after a spec change starts counting again", () => {
    const failed: Recorded = { state: "Failed", failedAttempts: 5, observedGeneration: 1 };
    const { recorded } = settle(
      input({ generation: 2, recorded: failed }),
      { type: "create", state: "Creating" },
      {
        ok: false,
        error: "x",
      },
    );
    expect(recorded.failedAttempts).toBe(1);
  });
});
