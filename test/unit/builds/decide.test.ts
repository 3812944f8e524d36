import { describe, expect, it } from "vitest";
import type { ImageBuildStatus } from "../../../src/apis/builds/imagebuild.ts";
import {
  type Blocked,
  type Decision,
  decide,
  failedForOverride,
  type Observed,
} from "../../../src/builds/decide.ts";

const now = new Date("2026-01-01T12:00:00Z");
const image = "localhost:5000/fraud-scorer:v1";
const job = { namespace: "ml-builds", name: "build-fraud-scorer-v1-0123456789" };

function observed(overrides: Partial<Observed> = {}): Observed {
  return {
    generation: 1,
    status: undefined,
    now,
    image,
    artifactUri: "s3://models/fraud",
    timeoutSeconds: 600,
    memoryLimit: "8Gi",
    job,
    namespace: "team-a",
    maxConcurrentBuilds: 10,
    slots: { held: new Map(), waiting: new Map() },
    ...overrides,
  };
}

const building: ImageBuildStatus = {
  phase: "Building",
  observedGeneration: 1,
  startedAt: "2026-01-01T11:59:00Z",
  job,
};

function act(decision: Decision) {
  if (decision.kind !== "act") throw new Error(`expected an action, got ${JSON.stringify(decision)}`);
  return decision;
}

describe("decide: a new build", () => {
  it("asks the registry first, then the artifact, then the run", () => {
    expect(decide(observed())).toEqual({ kind: "observe", what: "registry" });
    expect(decide(observed({ registry: { result: "missing" } }))).toEqual({
      kind: "observe",
      what: "artifact",
    });
    expect(decide(observed({ registry: { result: "missing" }, artifact: { result: "exists" } }))).toEqual({
      kind: "observe",
      what: "job",
    });
  });

  // [what was observed, phase, condition reason, message pattern, startJob, deleteJob]
  const table: [string, Partial<Observed>, string, string, RegExp, boolean, boolean][] = [
    [
      "image exists",
      { registry: { result: "exists", digest: "sha256:1" } },
      "Succeeded",
      "Reused",
      /already exists/,
      false,
      false,
    ],
    [
      "registry 401/403",
      { registry: { result: "rejected", message: "401" } },
      "Failed",
      "CredentialsRejected",
      /registry credentials rejected/,
      false,
      false,
    ],
    [
      "registry down",
      { registry: { result: "unavailable", message: "503" } },
      "Failed",
      "RegistryUnavailable",
      /503/,
      false,
      false,
    ],
    [
      "no blob store",
      { registry: { result: "missing" }, artifact: { result: "unconfigured" } },
      "Failed",
      "NoBlobStore",
      /no blob store is configured/,
      false,
      false,
    ],
    [
      "artifact missing",
      { registry: { result: "missing" }, artifact: { result: "missing" } },
      "Failed",
      "ArtifactMissing",
      /s3:\/\/models\/fraud not found/,
      false,
      false,
    ],
    [
      "artifact denied",
      { registry: { result: "missing" }, artifact: { result: "denied", message: "AccessDenied" } },
      "Failed",
      "ArtifactAccessDenied",
      /denied: AccessDenied/,
      false,
      false,
    ],
    [
      "store unreachable",
      { registry: { result: "missing" }, artifact: { result: "unavailable", message: "ECONNREFUSED" } },
      "Pending",
      "ArtifactUnavailable",
      /ECONNREFUSED/,
      false,
      false,
    ],
    [
      "no run yet",
      {
        registry: { result: "missing" },
        artifact: { result: "exists" },
        observedJob: { state: "absent" },
        buildArgs: { result: "ok" },
      },
      "Building",
      "Building",
      /building/,
      true,
      false,
    ],
    [
      "a run of the same image",
      {
        registry: { result: "missing" },
        artifact: { result: "exists" },
        observedJob: { state: "running", attempts: 1 },
      },
      "Building",
      "Building",
      /building/,
      true,
      false,
    ],
    [
      "an old finished run",
      {
        registry: { result: "missing" },
        artifact: { result: "exists" },
        observedJob: { state: "failed", attempts: 3, reason: "Error", message: "x" },
      },
      "Pending",
      "Restarting",
      /removing the finished Job/,
      false,
      true,
    ],
    [
      "too many builds",
      {
        registry: { result: "missing" },
        artifact: { result: "exists" },
        observedJob: { state: "absent" },
        buildArgs: { result: "ok" },
        slots: { held: new Map([["team-b", 10]]), waiting: new Map() },
      },
      "Pending",
      "Queued",
      /maxConcurrentBuilds 10/,
      false,
      false,
    ],
  ];
  for (const [title, o, phase, reason, message, startJob, deleteJob] of table) {
    it(`${title} → ${phase} (${reason})`, () => {
      const decision = act(decide(observed(o)));
      expect(decision.status?.phase).toBe(phase);
      expect(decision.status?.conditions?.[0]).toMatchObject({
        type: "Succeeded",
        reason,
        observedGeneration: 1,
      });
      expect(decision.status?.message).toMatch(message);
      expect(Boolean(decision.startJob)).toBe(startJob);
      expect(Boolean(decision.deleteJob)).toBe(deleteJob);
    });
  }

  it("asks who holds the build slots only when a run is to start: never for an image that exists", () => {
    const toStart = {
      registry: { result: "missing" },
      artifact: { result: "exists" },
      observedJob: { state: "absent" },
    } as const;
    expect(decide(observed({ ...toStart, buildArgs: { result: "ok" }, slots: undefined }))).toEqual({
      kind: "observe",
      what: "slots",
    });
    const reused = act(
      decide(observed({ registry: { result: "exists", digest: "sha256:1" }, slots: undefined })),
    );
    expect(reused.status?.phase).toBe("Succeeded");
    const joined = act(
      decide(observed({ ...toStart, observedJob: { state: "running", attempts: 1 }, slots: undefined })),
    );
    expect(joined.startJob).toBe(true);
  });

  it("a namespace at its fair share waits while another namespace's build waits, naming the rule", () => {
    const decision = act(
      decide(
        observed({
          registry: { result: "missing" },
          artifact: { result: "exists" },
          observedJob: { state: "absent" },
          buildArgs: { result: "ok" },
          slots: {
            held: new Map([
              ["team-a", 5],
              ["team-b", 4],
            ]),
            waiting: new Map([["team-b", 3]]),
          },
        }),
      ),
    );
    expect(decision.status).toMatchObject({ phase: "Pending" });
    expect(decision.status?.conditions?.[0]?.reason).toBe("Queued");
    expect(decision.status?.message).toBe(
      "waiting: namespace team-a holds 5 of 10 build slots, its fair share while builds of other namespaces wait (maxConcurrentBuilds 10)",
    );
  });

  it("records the digest and reused when the image exists, with no run", () => {
    const decision = act(decide(observed({ registry: { result: "exists", digest: "sha256:abc" } })));
    expect(decision.status).toMatchObject({ phase: "Succeeded", reused: true, digest: "sha256:abc", image });
    // nothing was done in the cluster: the status is the record, no Event (one status write per reuse)
    expect(decision.event).toBeUndefined();
  });
});

describe("decide: a build in flight", () => {
  const inFlight = (o: Partial<Observed>) => observed({ status: building, ...o });

  it("follows the run", () => {
    expect(decide(inFlight({}))).toEqual({ kind: "observe", what: "job" });
    const running = act(decide(inFlight({ observedJob: { state: "running", attempts: 2 } })));
    expect(running.status).toMatchObject({ phase: "Building", attempts: 2, startedAt: building.startedAt });
    // 60 s of a 600 s timeout gone: the next look is a poll (3 s) away
    expect(running.requeueAfterMs).toBe(3_000);
  });

  it("looks again at the timeout when it comes before the next poll, and not sooner than a second", () => {
    const running = { state: "running" as const, attempts: 1 };
    // started 11:50:02: 598 s of the 600 s gone, the timeout is 2 s away
    const nearTimeout = { ...building, startedAt: "2026-01-01T11:50:02Z" };
    expect(act(decide(inFlight({ status: nearTimeout, observedJob: running }))).requeueAfterMs).toBe(2_000);
    // 599.9 s gone: 100 ms left, looked at again after the floor of one second
    const almost = { ...building, startedAt: "2026-01-01T11:50:00.100Z" };
    expect(act(decide(inFlight({ status: almost, observedJob: running }))).requeueAfterMs).toBe(1_000);
  });

  it("a finished run: the digest comes from the registry", () => {
    expect(decide(inFlight({ observedJob: { state: "succeeded", attempts: 1 } }))).toEqual({
      kind: "observe",
      what: "registry",
    });
    const built = act(
      decide(
        inFlight({
          observedJob: { state: "succeeded", attempts: 1 },
          registry: { result: "exists", digest: "sha256:d" },
        }),
      ),
    );
    expect(built.status).toMatchObject({ phase: "Succeeded", reused: false, digest: "sha256:d" });
    const justFinished = { state: "succeeded" as const, attempts: 1, finishedAt: "2026-01-01T11:59:50Z" };
    const waiting = act(decide(inFlight({ observedJob: justFinished, registry: { result: "missing" } })));
    expect(waiting.status).toMatchObject({
      phase: "Building",
      message: expect.stringMatching(/waiting for .* to appear/),
    });
    // the pushed image is looked for every 2 s while it may still be on its way
    expect(waiting.requeueAfterMs).toBe(2_000);
    const longAgo = { ...justFinished, finishedAt: "2026-01-01T11:50:00Z" };
    const notPushed = act(decide(inFlight({ observedJob: longAgo, registry: { result: "missing" } })));
    expect(notPushed.status?.conditions?.[0]?.reason).toBe("ImageNotPushed");
  });

  it("fails with the termination message only when the Job has failed (retries used up)", () => {
    const failed = act(
      decide(
        inFlight({
          observedJob: { state: "failed", attempts: 3, reason: "Error", message: "kaniko: COPY failed" },
        }),
      ),
    );
    expect(failed.status).toMatchObject({
      phase: "Failed",
      message: "build failed after 3 attempts: kaniko: COPY failed",
    });
    expect(failed.event).toMatchObject({ type: "Warning", reason: "BuildFailed" });
  });

  it("names OOMKilled with the memory limit", () => {
    const oom = act(
      decide(inFlight({ observedJob: { state: "failed", attempts: 3, reason: "OOMKilled", message: "" } })),
    );
    expect(oom.status?.conditions?.[0]?.reason).toBe("OOMKilled");
    expect(oom.status?.message).toMatch(/OOMKilled at its memory limit of 8Gi/);
  });

  it("times out: deletes the run and fails with Timeout, by the Job's deadline or the clock", () => {
    const byJob = act(
      decide(
        inFlight({ observedJob: { state: "failed", attempts: 1, reason: "DeadlineExceeded", message: "" } }),
      ),
    );
    expect(byJob).toMatchObject({ deleteJob: true, status: { phase: "Failed" } });
    expect(byJob.status?.conditions?.[0]?.reason).toBe("Timeout");
    const byClock = act(
      decide(inFlight({ timeoutSeconds: 30, observedJob: { state: "running", attempts: 1 } })),
    );
    expect(byClock.deleteJob).toBe(true);
    expect(byClock.status?.message).toMatch(/exceeded its timeout of 30s; its Job was deleted/);
  });

  it("a build that joined another build's run times out without deleting it", () => {
    const joined = act(
      decide(inFlight({ timeoutSeconds: 30, observedJob: { state: "running", attempts: 1, joined: true } })),
    );
    expect(joined.deleteJob).toBeUndefined();
    expect(joined.status?.conditions?.[0]?.reason).toBe("Timeout");
    expect(joined.status?.message).toMatch(/the Job it joined \(another build's\) is left running/);
  });

  it("starts over (registry first) when the run has gone", () => {
    expect(decide(inFlight({ observedJob: { state: "absent" } }))).toEqual({
      kind: "observe",
      what: "registry",
    });
    const exists = act(
      decide(
        inFlight({ observedJob: { state: "absent" }, registry: { result: "exists", digest: "sha256:e" } }),
      ),
    );
    expect(exists.status).toMatchObject({ phase: "Succeeded", reused: false });
  });
});

describe("decide: finished builds", () => {
  it("does nothing for a finished build of the current generation", () => {
    for (const phase of ["Succeeded", "Failed"] as const) {
      expect(decide(observed({ status: { phase, observedGeneration: 1 } }))).toEqual({ kind: "act" });
    }
  });

  it("starts again when the spec changed after it finished", () => {
    expect(decide(observed({ generation: 2, status: { phase: "Failed", observedGeneration: 1 } }))).toEqual({
      kind: "observe",
      what: "registry",
    });
  });

  it("keeps lastTransitionTime while the condition does not change", () => {
    const first = act(decide(observed({ status: building, observedJob: { state: "running", attempts: 1 } })));
    const later = act(
      decide(
        observed({
          status: first.status,
          now: new Date(now.getTime() + 5000),
          observedJob: { state: "running", attempts: 1 },
        }),
      ),
    );
    expect(later.status?.conditions?.[0]?.lastTransitionTime).toBe(
      first.status?.conditions?.[0]?.lastTransitionTime,
    );
  });
});

describe("decide: a build that cannot be attempted", () => {
  const blocked = (blocker: Blocked["blocker"], status?: ImageBuildStatus): Blocked => ({
    generation: 1,
    status,
    now,
    blocker,
  });

  it("fails with the blocker's reason and message, as a Warning", () => {
    for (const reason of [
      "NotConfigured",
      "InvalidOverride",
      "InvalidImageName",
      "InvalidArtifactUri",
    ] as const) {
      const decision = act(decide(blocked({ reason, message: `because ${reason}` })));
      expect(decision.status).toMatchObject({ phase: "Failed", message: `because ${reason}` });
      expect(decision.status?.conditions?.[0]).toMatchObject({ type: "Succeeded", status: "False", reason });
      expect(decision.event).toEqual({ type: "Warning", reason, message: `because ${reason}` });
      expect(decision.startJob).toBeUndefined();
    }
  });

  it("an override that stays just as invalid: the failure is not written or reported again", () => {
    const first = act(decide(blocked({ reason: "InvalidOverride", message: "registry.type: bad" })));
    const again = decide(blocked({ reason: "InvalidOverride", message: "registry.type: bad" }, first.status));
    expect(again).toEqual({ kind: "act" });
    const other = act(decide(blocked({ reason: "InvalidOverride", message: "naming: bad" }, first.status)));
    expect(other.status?.message).toBe("naming: bad");
  });

  it("a build the override failed starts over once the override is valid; other failures stay", () => {
    const failed = act(decide(blocked({ reason: "InvalidOverride", message: "bad" }))).status;
    expect(decide(observed({ status: failed }))).toEqual({ kind: "observe", what: "registry" });
    const notConfigured = act(decide(blocked({ reason: "NotConfigured", message: "none" }))).status;
    expect(decide(observed({ status: notConfigured }))).toEqual({ kind: "act" });
  });

  it("failedForOverride reads the Succeeded condition, wherever it is in the list", () => {
    const failed = act(decide(blocked({ reason: "InvalidOverride", message: "bad" }))).status ?? {};
    const conditions = failed.conditions ?? [];
    const other = { ...conditions[0], type: "Other", reason: "Something" } as (typeof conditions)[number];
    expect(failedForOverride({ ...failed, conditions: [other, ...conditions] })).toBe(true);
    expect(failedForOverride({ ...failed, conditions: [other] })).toBe(false);
  });
});

describe("decide: secret build arguments", () => {
  const ready = {
    registry: { result: "missing" },
    artifact: { result: "exists" },
    observedJob: { state: "absent" },
  } as const;

  it("are checked before the slots are counted, so nothing is awaited between counting and taking one", () => {
    expect(decide(observed({ ...ready, slots: undefined }))).toEqual({ kind: "observe", what: "buildArgs" });
    const started = act(decide(observed({ ...ready, buildArgs: { result: "ok" } })));
    expect(started).toMatchObject({ startJob: true, claimsSlot: true });
  });

  it("are checked just before a run starts, not when joining one", () => {
    expect(decide(observed(ready))).toEqual({ kind: "observe", what: "buildArgs" });
    const joined = act(decide(observed({ ...ready, observedJob: { state: "running", attempts: 1 } })));
    expect(joined).toMatchObject({ startJob: true, event: { reason: "BuildJoined" } });
    expect(joined.claimsSlot).toBeUndefined();
  });

  it("a missing one fails the build naming it, with no run", () => {
    const message = "spec.buildArgs PIP_TOKEN: Secret pip not found in namespace ml";
    const decision = act(decide(observed({ ...ready, buildArgs: { result: "invalid", message } })));
    expect(decision.startJob).toBeUndefined();
    expect(decision.status).toMatchObject({ phase: "Failed", message });
    expect(decision.status?.conditions?.[0]?.reason).toBe("InvalidBuildArgument");
  });

  it("a started run records its Job with the Job's namespace", () => {
    const started = act(decide(observed({ ...ready, buildArgs: { result: "ok" } })));
    expect(started.status?.job).toEqual(job);
    const followed = act(
      decide(
        observed({ status: { ...building, job: undefined }, observedJob: { state: "running", attempts: 1 } }),
      ),
    );
    expect(followed.status?.job).toEqual(job);
  });
});
