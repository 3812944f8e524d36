import { describe, expect, it } from "vitest";
import type { ImageBuild } from "../../../src/apis/builds/imagebuild.ts";
import {
  type BuildLookup,
  claimSlot,
  fairShare,
  queuedBuild,
  type SlotUsage,
  slotHolder,
} from "../../../src/builds/build-slots.ts";

const builds: Record<string, string> = { "team-a/scorer": "uid-a", "team-b/ranker": "uid-b" };
const lookup: BuildLookup = (namespace, name) => {
  const uid = builds[`${namespace}/${name}`];
  return uid ? { metadata: { uid } } : undefined;
};

const owner = (name: string, uid: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: "builds.slipway.dev/v1beta1",
  kind: "ImageBuild",
  name,
  uid,
  controller: true,
  ...extra,
});

const job = (metadata: Record<string, unknown>, spec: Record<string, unknown> = {}, status = {}) => ({
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: { name: "build-x", namespace: "team-a", ...metadata },
  spec,
  status,
});

describe("slotHolder: only the operator's own running Jobs hold a build slot", () => {
  it("a Job its cached ImageBuild controls (by uid) holds one for the build's namespace", () => {
    expect(slotHolder(job({ ownerReferences: [owner("scorer", "uid-a")] }), lookup)).toBe("team-a");
  });

  it("a look-alike holds none: no owner, another uid, a missing build, a non-controller or foreign owner", () => {
    expect(slotHolder(job({}), lookup)).toBeUndefined();
    expect(slotHolder(job({ ownerReferences: [owner("scorer", "uid-forged")] }), lookup)).toBeUndefined();
    expect(slotHolder(job({ ownerReferences: [owner("gone", "uid-a")] }), lookup)).toBeUndefined();
    expect(
      slotHolder(job({ ownerReferences: [owner("scorer", "uid-a", { controller: false })] }), lookup),
    ).toBeUndefined();
    expect(
      slotHolder(job({ ownerReferences: [owner("scorer", "uid-a", { kind: "CronJob" })] }), lookup),
    ).toBeUndefined();
    expect(
      slotHolder(
        job({ ownerReferences: [owner("scorer", "uid-a", { apiVersion: "evil.example.com/v1" })] }),
        lookup,
      ),
    ).toBeUndefined();
  });

  it("a suspended or finished Job holds none", () => {
    const ownerReferences = [owner("scorer", "uid-a")];
    expect(slotHolder(job({ ownerReferences }, { suspend: true }), lookup)).toBeUndefined();
    for (const type of ["Complete", "Failed", "SuccessCriteriaMet", "FailureTarget"])
      expect(
        slotHolder(job({ ownerReferences }, {}, { conditions: [{ type, status: "True" }] }), lookup),
      ).toBeUndefined();
    expect(
      slotHolder(
        job({ ownerReferences }, {}, { conditions: [{ type: "Suspended", status: "False" }] }),
        lookup,
      ),
    ).toBe("team-a");
  });

  it("a Job in the shared build namespace holds one for the namespace its tie labels name, if the uid is that build's", () => {
    const tied = (namespace: string, uid: string) =>
      job({
        namespace: "ml-builds",
        labels: { "builds.slipway.dev/build-namespace": namespace, "builds.slipway.dev/build-uid": uid },
        annotations: { "builds.slipway.dev/build-name": "ranker" },
      });
    expect(slotHolder(tied("team-b", "uid-b"), lookup)).toBe("team-b");
    expect(slotHolder(tied("team-b", "uid-forged"), lookup)).toBeUndefined();
    // a tie to a build of the Job's own namespace: such a Job would be owned by reference instead
    expect(
      slotHolder(
        job({
          labels: { "builds.slipway.dev/build-namespace": "team-a", "builds.slipway.dev/build-uid": "uid-a" },
          annotations: { "builds.slipway.dev/build-name": "scorer" },
        }),
        lookup,
      ),
    ).toBeUndefined();
  });
});

const usage = (held: Record<string, number>, waiting: Record<string, number> = {}): SlotUsage => ({
  held: new Map(Object.entries(held)),
  waiting: new Map(Object.entries(waiting)),
});

describe("claimSlot: maxConcurrentBuilds with a fair share per namespace while others wait", () => {
  it("no slot free: every build waits, saying how many run", () => {
    expect(claimSlot(usage({ "team-a": 6, "team-b": 4 }), "team-c", 10)).toEqual({
      granted: false,
      message: "waiting: 10 builds running (maxConcurrentBuilds 10)",
    });
  });

  it("alone, a namespace may take every slot", () => {
    expect(claimSlot(usage({ "team-a": 9 }), "team-a", 10)).toEqual({ granted: true });
  });

  it("at its share while another namespace below its share waits, a namespace does not get the next slot; that one does", () => {
    const state = usage({ "team-a": 9 }, { "team-a": 4, "team-b": 1 });
    expect(fairShare(state, "team-a", 10)).toBe(5);
    expect(claimSlot(state, "team-a", 10)).toEqual({
      granted: false,
      message:
        "waiting: namespace team-a holds 9 of 10 build slots, its fair share while builds of other namespaces wait (maxConcurrentBuilds 10)",
    });
    expect(claimSlot(state, "team-b", 10)).toEqual({ granted: true });
  });

  it("over its share, a namespace may still take a free slot no waiting namespace below its share could claim", () => {
    // team-b waits with 1 build: of 4 free slots it can claim 1, so 3 are left for team-a
    expect(claimSlot(usage({ "team-a": 6 }, { "team-b": 1 }), "team-a", 10)).toEqual({ granted: true });
    // team-b holds its share already (5 of 11): nothing is kept for it
    expect(claimSlot(usage({ "team-a": 5, "team-b": 5 }, { "team-b": 2 }), "team-a", 11)).toEqual({
      granted: true,
    });
    // team-b holds 4 of its 5: the one free slot is its
    expect(claimSlot(usage({ "team-a": 5, "team-b": 4 }, { "team-b": 2 }), "team-a", 10).granted).toBe(false);
    // team-b (holding 2 of its 5) waits with 3: the 3 free slots are its
    expect(claimSlot(usage({ "team-a": 5, "team-b": 2 }, { "team-b": 3 }), "team-a", 10).granted).toBe(false);
  });

  it("more namespaces than slots: a share of one each, and a namespace holding none goes first", () => {
    const state = usage({ "team-a": 1 }, { "team-a": 2, "team-b": 1, "team-c": 1 });
    expect(fairShare(state, "team-a", 2)).toBe(1);
    expect(claimSlot(state, "team-a", 2).granted).toBe(false);
    expect(claimSlot(state, "team-b", 2).granted).toBe(true);
  });

  it("the asking namespace counts among those contending even with nothing held or waiting", () => {
    expect(fairShare(usage({ "team-a": 3 }), "team-b", 4)).toBe(2);
  });
});

describe("queuedBuild: a build waiting for a slot", () => {
  const build = (status: ImageBuild["status"], generation = 1) =>
    ({ metadata: { generation }, spec: {}, status }) as unknown as ImageBuild;
  const queued = {
    phase: "Pending" as const,
    observedGeneration: 1,
    conditions: [
      {
        type: "Succeeded",
        status: "Unknown" as const,
        reason: "Queued",
        message: "",
        lastTransitionTime: "2026-01-01T00:00:00Z",
      },
    ],
  };

  it("is Pending with reason Queued for its current generation", () => {
    expect(queuedBuild(build(queued))).toBe(true);
    expect(queuedBuild(build(queued, 2))).toBe(false);
    expect(queuedBuild(build({ ...queued, phase: "Building" }))).toBe(false);
    expect(queuedBuild(build(undefined))).toBe(false);
  });
});
