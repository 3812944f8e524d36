import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import {
  type ComponentObservation,
  componentVerdict,
  podFailure,
  type WorkloadView,
} from "../../../src/platform/component-status.ts";

const rolledOut: WorkloadView = {
  renderedFrom: 3,
  generation: 5,
  replicas: 2,
  status: { observedGeneration: 5, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 },
};

function observation(overrides: Partial<ComponentObservation> = {}): ComponentObservation {
  return {
    generation: 3,
    stopped: false,
    replicas: 2,
    version: "0.1.0",
    previous: {},
    workload: rolledOut,
    pods: [],
    hasService: true,
    readyEndpoints: 2,
    ...overrides,
  };
}

const crashLooping: V1Pod = {
  metadata: { name: "mlflow-1" },
  status: {
    phase: "Running",
    containerStatuses: [
      {
        name: "mlflow",
        image: "x",
        imageID: "",
        ready: false,
        restartCount: 4,
        state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 40s restarting" } },
      },
    ],
  },
};

describe("componentVerdict", () => {
  it("is Ready at the spec's version when the rollout of this generation is complete and endpoints are ready", () => {
    expect(componentVerdict(observation())).toMatchObject({
      phase: "Ready",
      version: "0.1.0",
      readyReplicas: 2,
    });
  });

  it("is Pending before the workload exists", () => {
    expect(componentVerdict(observation({ workload: undefined })).phase).toBe("Pending");
  });

  it("is Updating, saying so, while a running workload is recreated (and Deploying before it ever ran)", () => {
    const recreating = "recreating StatefulSet slipway-postgres: waiting for the old one to be deleted";
    expect(
      componentVerdict(
        observation({ workload: undefined, recreating, previous: { phase: "Ready", version: "0.1.0" } }),
      ),
    ).toMatchObject({ phase: "Updating", message: recreating, version: "0.1.0" });
    expect(componentVerdict(observation({ workload: undefined, recreating }))).toMatchObject({
      phase: "Deploying",
      message: recreating,
    });
  });

  it("is Pending, naming whom it waits for, while its workload change waits on the dependency graph", () => {
    const old = { ...rolledOut, renderedFrom: 2 };
    expect(
      componentVerdict(
        observation({
          workload: old,
          previous: { phase: "Ready", version: "0.0.9" },
          waitingFor: ["postgres"],
        }),
      ),
    ).toMatchObject({ phase: "Pending", message: "waiting for postgres to be Ready", version: "0.0.9" });
    expect(componentVerdict(observation({ stopped: true, waitingFor: ["mlflow", "web"] })).message).toBe(
      "waiting for mlflow, web to stop",
    );
  });

  it.each([
    [
      "a workload rendered from an older generation",
      { ...rolledOut, renderedFrom: 2 },
      "workload not yet updated",
    ],
    [
      "a generation the workload controller has not observed",
      { ...rolledOut, generation: 6 },
      "rollout not yet observed",
    ],
    [
      "pods not all updated",
      { ...rolledOut, status: { ...rolledOut.status, updatedReplicas: 1 } },
      "1/2 pods updated",
    ],
    [
      "old pods still there",
      { ...rolledOut, status: { ...rolledOut.status, replicas: 3 } },
      "1 old pod(s) still terminating",
    ],
    [
      "a StatefulSet whose revision is not yet current",
      { ...rolledOut, status: { ...rolledOut.status, currentRevision: "a", updateRevision: "b" } },
      "rollout in progress",
    ],
    [
      "pods not available",
      { ...rolledOut, status: { ...rolledOut.status, availableReplicas: 1 } },
      "1/2 pods available",
    ],
  ])("is Deploying with %s", (_what, workload, message) => {
    expect(componentVerdict(observation({ workload }))).toMatchObject({ phase: "Deploying", message });
  });

  it("waits for ready Service endpoints, but not for a component without a Service", () => {
    expect(componentVerdict(observation({ readyEndpoints: 0 })).message).toBe(
      "Service has no ready endpoints",
    );
    expect(componentVerdict(observation({ readyEndpoints: 0, hasService: false })).phase).toBe("Ready");
  });

  it("waits for an Ingress address only where an ingress controller exists", () => {
    expect(componentVerdict(observation({ ingress: { hasAddress: false } })).phase).toBe("Deploying");
    expect(componentVerdict(observation({ ingress: { hasAddress: true } })).phase).toBe("Ready");
  });

  it("is Updating, keeping the old version, while a new version rolls out", () => {
    const verdict = componentVerdict(
      observation({
        previous: { phase: "Ready", version: "0.0.9" },
        workload: { ...rolledOut, status: { ...rolledOut.status, updatedReplicas: 0 } },
      }),
    );
    expect(verdict).toMatchObject({ phase: "Updating", version: "0.0.9" });
  });

  const stalled = { ...rolledOut, status: { ...rolledOut.status, availableReplicas: 1 } };

  it("is Failed with the reason when a pod crash-loops", () => {
    const verdict = componentVerdict(observation({ workload: stalled, pods: [crashLooping] }));
    expect(verdict.phase).toBe("Failed");
    expect(verdict.message).toBe(
      "pod mlflow-1: CrashLoopBackOff (restarted 4 times): back-off 40s restarting",
    );
  });

  it("a crash loop's message ends with what the container last said, its URL passwords masked", () => {
    const said: V1Pod = structuredClone(crashLooping);
    const status = said.status?.containerStatuses?.[0];
    if (status)
      status.lastState = {
        terminated: {
          exitCode: 1,
          reason: "Error",
          message:
            "starting\nTraceback (most recent call last):\n  ...\nsqlalchemy.exc.ArgumentError: bad URL postgresql://slipway:s3cret@db:5432/x\n",
        },
      };
    const verdict = componentVerdict(observation({ workload: stalled, pods: [said] }));
    expect(verdict.message).toBe(
      "pod mlflow-1: CrashLoopBackOff (restarted 4 times): back-off 40s restarting; last exit code 1: " +
        "Traceback (most recent call last): | ... | sqlalchemy.exc.ArgumentError: bad URL postgresql://slipway:***@db:5432/x",
    );
    expect(verdict.message).not.toContain("s3cret");
  });

  it("judges only the pods of the current template, not old ones the rollout replaces", () => {
    const old = {
      ...crashLooping,
      metadata: { name: "old", annotations: { "platform.slipway.dev/template-hash": "a" } },
    };
    expect(componentVerdict(observation({ workload: stalled, pods: [old], templateHash: "b" })).phase).toBe(
      "Deploying",
    );
    expect(componentVerdict(observation({ workload: stalled, pods: [old], templateHash: "a" })).phase).toBe(
      "Failed",
    );
  });

  it("is Failed when a pod failed, with its exit code", () => {
    const failed: V1Pod = {
      metadata: { name: "p" },
      status: {
        phase: "Failed",
        containerStatuses: [
          {
            name: "c",
            image: "x",
            imageID: "",
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 3, reason: "Error", message: "no database" } },
          },
        ],
      },
    };
    expect(podFailure([failed])).toBe("pod p: Error (exit code 3): no database");
  });

  it("is Failed when the rollout passed its progress deadline", () => {
    const workload = {
      ...rolledOut,
      status: {
        ...rolledOut.status,
        availableReplicas: 0,
        conditions: [
          {
            type: "Progressing",
            status: "False",
            reason: "ProgressDeadlineExceeded",
            message: "RS x timed out",
          },
        ],
      },
    };
    expect(componentVerdict(observation({ workload }))).toMatchObject({
      phase: "Failed",
      message: "rollout exceeded its progress deadline: RS x timed out",
    });
  });

  it("ignores pods being deleted, and failed pods already replaced by a complete rollout", () => {
    const leaving = { ...crashLooping, metadata: { name: "old", deletionTimestamp: new Date() } };
    expect(componentVerdict(observation({ workload: stalled, pods: [leaving] })).phase).toBe("Deploying");
    expect(componentVerdict(observation({ pods: [crashLooping] })).phase).toBe("Ready");
  });

  it("is Stopping until every pod is gone, then Stopped", () => {
    const scaledDown = { ...rolledOut, replicas: 0, status: { ...rolledOut.status, replicas: 1 } };
    expect(componentVerdict(observation({ stopped: true, workload: scaledDown })).phase).toBe("Stopping");
    const gone = { ...scaledDown, status: { observedGeneration: 5 } };
    expect(componentVerdict(observation({ stopped: true, workload: gone })).phase).toBe("Stopped");
    expect(componentVerdict(observation({ stopped: true, workload: gone, pods: [crashLooping] })).phase).toBe(
      "Stopping",
    );
  });
});

describe("a StatefulSet's progress deadline (Kubernetes gives StatefulSets none)", () => {
  const started = Date.parse("2026-12-05T10:00:00Z");
  const at = (seconds: number) => new Date(started + seconds * 1000).toISOString();
  const updating = { ...rolledOut, status: { ...rolledOut.status, updatedReplicas: 1 } };
  const pod = (created: number, readyAt?: number): V1Pod =>
    ({
      metadata: { name: "postgres-0", creationTimestamp: at(created) },
      status: {
        phase: readyAt === undefined ? "Pending" : "Running",
        ...(readyAt === undefined
          ? {}
          : { conditions: [{ type: "Ready", status: "True", lastTransitionTime: at(readyAt) }] }),
      },
    }) as unknown as V1Pod;
  const verdictAt = (now: number, pods: V1Pod[], rolloutStartedAt: string | null = at(0)) =>
    componentVerdict(
      observation({
        workload: updating,
        pods,
        previous: { phase: "Ready", version: "0.1.0" },
        version: "0.2.0",
        statefulSetProgress: {
          deadlineSeconds: 60,
          ...(rolloutStartedAt ? { rolloutStartedAt } : {}),
          now: started + now * 1000,
        },
      }),
    );

  it("stays Updating until nothing progressed for the deadline, then fails naming it and what is unfinished", () => {
    expect(verdictAt(60, [pod(5)]).phase).toBe("Updating");
    expect(verdictAt(66, [pod(5)])).toMatchObject({
      phase: "Failed",
      message:
        "rollout exceeded its progress deadline: no progress for 60 s (progressDeadlineSeconds): 1/2 pods updated",
    });
  });

  it("counts a pod created or becoming Ready as progress, and the rollout's start", () => {
    expect(verdictAt(100, [pod(5, 50)]).phase).toBe("Updating");
    expect(verdictAt(100, [pod(45)]).phase).toBe("Updating");
    expect(verdictAt(100, [], at(50)).phase).toBe("Updating");
    expect(verdictAt(100, [pod(5, 30)]).phase).toBe("Failed");
  });

  it("fails nothing it has no time for (no start recorded, no current pod)", () => {
    expect(verdictAt(10_000, [], null).phase).toBe("Updating");
  });

  it("does not apply to a Deployment, which reports its own deadline", () => {
    const deployment = componentVerdict(
      observation({ workload: updating, pods: [pod(0)], previous: { phase: "Ready", version: "0.1.0" } }),
    );
    expect(deployment.phase).toBe("Updating");
  });
});
