import type { V1Pod, V1StatefulSet } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { stuckOldRevisionPods } from "../../../src/platform/stuck-pods.ts";

const statefulSet = (observedGeneration = 2): V1StatefulSet => ({
  metadata: { name: "slipway-postgres", generation: 2 },
  spec: { selector: {}, serviceName: "slipway-postgres", template: {} },
  status: { replicas: 1, observedGeneration, currentRevision: "old", updateRevision: "good" },
});
const pod = (name: string, revision: string, ready: boolean, deleting = false): V1Pod => ({
  metadata: {
    name,
    labels: { "controller-revision-hash": revision },
    ...(deleting ? { deletionTimestamp: new Date() } : {}),
  },
  status: { conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
});

describe("stuckOldRevisionPods (a StatefulSet's forced rollback)", () => {
  it("names the pods of another revision that are not Ready", () => {
    const pods = [
      pod("postgres-0", "bad", false),
      pod("postgres-1", "bad", true),
      pod("postgres-2", "good", false),
      pod("postgres-3", "bad", false, true),
    ];
    expect(stuckOldRevisionPods(statefulSet(), pods).map((p) => p.metadata?.name)).toEqual(["postgres-0"]);
  });

  it("names none before the StatefulSet controller has observed the current template", () => {
    expect(stuckOldRevisionPods(statefulSet(1), [pod("postgres-0", "bad", false)])).toEqual([]);
  });
});
