import { describe, expect, it } from "vitest";
import { phaseTone } from "../../../web/src/components/phaseTone.ts";
import {
  appendPage,
  applyListEvent,
  applyPageChange,
  reconnectDelayMs,
} from "../../../web/src/live/liveList.ts";
import { pipelineGraphSteps, runGraphSteps, stepPhase } from "../../../web/src/pages/runs/runGraph.ts";
import { pipelineOfRun, runDuration, runState } from "../../../web/src/pages/runs/runState.ts";
import { listHref, parseRoute } from "../../../web/src/routes.ts";
import type { RunView } from "../../../web/src/views.ts";

describe("the UI's addresses", () => {
  it("names the page, the namespace (path or ?namespace=) and the object", () => {
    expect(parseRoute("/", "")).toEqual({ page: "overview" });
    expect(parseRoute("/update", "?namespace=x")).toEqual({ page: "update" });
    expect(parseRoute("/builds", "?namespace=team-a")).toMatchObject({ page: "builds", namespace: "team-a" });
    const detail = parseRoute("/runs/team-a/train-x1", "");
    expect(detail).toMatchObject({ page: "runs", namespace: "team-a", name: "train-x1" });
    expect(parseRoute("/providers/team-a/argo", "")).not.toHaveProperty("name");
    expect(parseRoute("/nowhere", "")).toEqual({ page: "overview" });
    expect(listHref("runs", "team-a", { start: "train" })).toBe("/runs?namespace=team-a&start=train");
    expect(listHref("builds", undefined)).toBe("/builds");
  });
});

describe("a live list", () => {
  type Item = { name: string; v: number };
  const a: Item = { name: "a", v: 1 };
  const b: Item = { name: "b", v: 1 };
  it("a snapshot replaces everything; upserts replace or add in name order; deletes remove", () => {
    let items = applyListEvent<Item>([{ name: "old", v: 0 }], { event: "snapshot", data: { items: [b, a] } });
    expect(items).toEqual([a, b]);
    items = applyListEvent<Item>(items, { event: "upsert", data: { name: "a", v: 2 } });
    expect(items).toEqual([{ name: "a", v: 2 }, b]);
    items = applyListEvent<Item>(items, { event: "upsert", data: { name: "0", v: 1 } });
    expect(items.map((item) => item.name)).toEqual(["0", "a", "b"]);
    expect(applyListEvent(items, { event: "delete", data: { name: "a" } }).map((item) => item.name)).toEqual([
      "0",
      "b",
    ]);
  });
  it("reconnects after 0.5 s, doubling to at most 10 s", () => {
    expect([0, 1, 2, 10].map(reconnectDelayMs)).toEqual([500, 1000, 2000, 10_000]);
  });
});

describe("a paged list kept live", () => {
  const named = (...names: string[]) => names.map((name) => ({ name }));
  const loaded = named("a", "c", "e");

  it("an upsert replaces a loaded object, adds one that sorts among the loaded, and leaves one of a later page for it", () => {
    const changed = { name: "c", spec: 2 };
    expect(
      applyPageChange<{ name: string; spec?: number }>(loaded, { event: "upsert", data: changed }, false),
    ).toEqual([{ name: "a" }, changed, { name: "e" }]);
    expect(applyPageChange(loaded, { event: "upsert", data: { name: "b" } }, false)).toEqual(
      named("a", "b", "c", "e"),
    );
    expect(applyPageChange(loaded, { event: "upsert", data: { name: "f" } }, false)).toEqual(loaded);
    // every page loaded: a new last object is shown
    expect(applyPageChange(loaded, { event: "upsert", data: { name: "f" } }, true)).toEqual(
      named("a", "c", "e", "f"),
    );
    expect(applyPageChange(loaded, { event: "delete", data: { name: "c" } }, false)).toEqual(named("a", "e"));
  });

  it("pages follow the API server's order (byte-wise), and a page does not repeat what a change already added", () => {
    expect(applyPageChange(named("a-b"), { event: "upsert", data: { name: "ab" } }, true)).toEqual(
      named("a-b", "ab"),
    );
    expect(appendPage(named("a", "c", "d"), named("d", "f"))).toEqual(named("a", "c", "d", "f"));
  });
});

describe("a run's state as the pages say it", () => {
  const run = (status?: RunView["status"]): RunView => ({
    name: "r",
    namespace: "n",
    createdAt: "2026-01-01T10:00:00Z",
    spec: { provider: "argo", pipeline: "p" },
    ...(status ? { status } : {}),
  });
  it("is the completion once complete, Running once synchronized, else the sync state", () => {
    expect(runState(run())).toBe("Pending");
    expect(runState(run({ state: "Creating" }))).toBe("Creating");
    expect(runState(run({ state: "Succeeded" }))).toBe("Running");
    expect(runState(run({ state: "Succeeded", completionState: "Failed" }))).toBe("Failed");
  });
  it("lasts from creation to completion, or to now while running", () => {
    const now = new Date("2026-01-01T10:02:05Z");
    expect(runDuration(run(), now)).toBe("2m 5s");
    expect(runDuration(run({ completedAt: "2026-01-01T10:00:42Z" }), now)).toBe("42s");
  });
  it("names its Pipeline without the pinned version", () => {
    expect(pipelineOfRun(run())).toBe("p");
    expect(pipelineOfRun({ ...run(), spec: { provider: "argo", pipeline: "p:5f3e2a" } })).toBe("p");
  });
});

describe("a run's step graph", () => {
  const pipeline = [{ name: "prepare" }, { name: "train", dependsOn: ["prepare"] }];
  const recorded = [
    { name: "prepare", phase: "Succeeded" as const },
    { name: "cleanup", phase: "Running" as const },
  ];
  it("is the Pipeline's steps, then any recorded step the Pipeline lacks, without dependencies", () => {
    expect(runGraphSteps(pipeline, recorded)).toEqual([
      { name: "prepare" },
      { name: "train", dependsOn: ["prepare"] },
      { name: "cleanup" },
    ]);
    expect(runGraphSteps([], recorded).map((step) => step.name)).toEqual(["prepare", "cleanup"]);
  });
  it("draws an edge from each step whose output a step takes, besides its dependsOn", () => {
    expect(
      pipelineGraphSteps([
        { name: "prepare" },
        {
          name: "train",
          inputs: { artifacts: [{ name: "data", from: { step: "prepare", output: "dataset" } }] },
        },
        {
          name: "evaluate",
          dependsOn: ["prepare"],
          inputs: {
            parameters: [
              { name: "score", from: { step: "train", output: "score" } },
              { name: "lr", from: { parameter: "lr" } },
            ],
          },
        },
      ]),
    ).toEqual([
      { name: "prepare" },
      { name: "train", dependsOn: ["prepare"] },
      { name: "evaluate", dependsOn: ["prepare", "train"] },
    ]);
  });
  it("gives each step its recorded phase, or not started, coloured as the badges are", () => {
    expect(stepPhase(recorded, "prepare")).toBe("Succeeded");
    expect(stepPhase(recorded, "train")).toBe("not started");
    expect(phaseTone("Failed")).toBe("bad");
    expect(phaseTone("Pending")).toBe("busy");
    expect(phaseTone("not started")).toBe("idle");
  });
});
