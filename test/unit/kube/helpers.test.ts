import { describe, expect, test } from "vitest";
import { setCondition } from "../../../src/kube/conditions.ts";
import { shouldReconcileUpdate } from "../../../src/kube/filters.ts";
import { keyString, parseKey, resourcePath } from "../../../src/kube/keys.ts";
import { canAcquire } from "../../../src/kube/leader.ts";
import { controllerOf, ownerReference } from "../../../src/kube/owners.ts";
import type { KubeObject } from "../../../src/kube/types.ts";

describe("setCondition", () => {
  const t0 = new Date("2026-01-01T00:00:00.123Z");
  const t1 = new Date("2026-01-01T00:05:00Z");
  const ready = { type: "Ready", status: "False" as const, reason: "Waiting", message: "not yet" };

  test("adds a condition with lastTransitionTime and observedGeneration", () => {
    expect(setCondition(undefined, ready, 1, t0)).toEqual([
      { ...ready, observedGeneration: 1, lastTransitionTime: "2026-01-01T00:00:00Z" },
    ]);
  });

  test("keeps lastTransitionTime when the status is unchanged, but updates reason, message, generation", () => {
    const first = setCondition(undefined, ready, 1, t0);
    const second = setCondition(first, { ...ready, reason: "StillWaiting", message: "soon" }, 2, t1);
    expect(second).toEqual([
      {
        ...ready,
        reason: "StillWaiting",
        message: "soon",
        observedGeneration: 2,
        lastTransitionTime: "2026-01-01T00:00:00Z",
      },
    ]);
  });

  test("moves lastTransitionTime when the status changes, and leaves other conditions alone", () => {
    const list = setCondition(
      setCondition(undefined, ready, 1, t0),
      { type: "Degraded", status: "False", reason: "Fine", message: "" },
      1,
      t0,
    );
    const next = setCondition(list, { ...ready, status: "True", reason: "Done" }, 1, t1);
    expect(next[0]).toMatchObject({
      type: "Ready",
      status: "True",
      lastTransitionTime: "2026-01-01T00:05:00Z",
    });
    expect(next[1]).toBe(list[1]);
    expect(list[0]?.status).toBe("False"); // the input is not mutated
  });
});

describe("generation-changed filter", () => {
  const base: KubeObject = {
    metadata: { name: "a", resourceVersion: "1", generation: 1, labels: { x: "1" }, finalizers: ["f"] },
  };
  const changed = (metadata: Record<string, unknown>) => ({
    metadata: { ...base.metadata, resourceVersion: "2", ...metadata },
  });

  test("ignores status-only writes (same generation) and resyncs (same resourceVersion)", () => {
    expect(shouldReconcileUpdate(base, changed({}))).toBe(false);
    expect(shouldReconcileUpdate(base, base)).toBe(false);
  });

  test("reacts to spec, deletion, finalizer, label and annotation changes", () => {
    expect(shouldReconcileUpdate(base, changed({ generation: 2 }))).toBe(true);
    expect(shouldReconcileUpdate(base, changed({ deletionTimestamp: new Date() }))).toBe(true);
    expect(shouldReconcileUpdate(base, changed({ finalizers: [] }))).toBe(true);
    expect(shouldReconcileUpdate(base, changed({ labels: { x: "2" } }))).toBe(true);
    expect(shouldReconcileUpdate(base, changed({ annotations: { a: "b" } }))).toBe(true);
  });

  test("objects without a generation react to every change", () => {
    expect(
      shouldReconcileUpdate({ metadata: { resourceVersion: "1" } }, { metadata: { resourceVersion: "2" } }),
    ).toBe(true);
  });
});

describe("keys and paths", () => {
  test("round-trip namespaced and cluster-scoped keys", () => {
    expect(keyString({ namespace: "ns", name: "a" })).toBe("ns/a");
    expect(parseKey("ns/a")).toEqual({ namespace: "ns", name: "a" });
    expect(parseKey("a")).toEqual({ name: "a" });
  });

  test("builds REST paths for core and group kinds, with subresources", () => {
    const pods = { group: "", version: "v1", kind: "Pod", plural: "pods", namespaced: true };
    const widgets = {
      group: "test.slipway.dev",
      version: "v1",
      kind: "Widget",
      plural: "widgets",
      namespaced: true,
    };
    expect(resourcePath(pods, { namespace: "ns", name: "p" })).toBe("/api/v1/namespaces/ns/pods/p");
    expect(resourcePath(widgets, { namespace: "ns", name: "w", subresource: "status" })).toBe(
      "/apis/test.slipway.dev/v1/namespaces/ns/widgets/w/status",
    );
    expect(resourcePath(widgets)).toBe("/apis/test.slipway.dev/v1/widgets");
  });
});

describe("owner references", () => {
  test("a controller reference to the owner; controllerOf finds it", () => {
    const owner = { apiVersion: "test.slipway.dev/v1", kind: "Widget", metadata: { name: "w", uid: "u1" } };
    const ref = ownerReference(owner);
    expect(ref).toEqual({
      apiVersion: "test.slipway.dev/v1",
      kind: "Widget",
      name: "w",
      uid: "u1",
      controller: true,
      blockOwnerDeletion: true,
    });
    expect(controllerOf({ metadata: { ownerReferences: [{ ...ref, controller: false }, ref] } })).toBe(ref);
    expect(() => ownerReference({ kind: "Widget", metadata: { name: "w" } })).toThrow(/uid/);
  });
});

describe("leader lease", () => {
  test("free, own or expired (on this process's clock) leases can be taken; a fresh one cannot", () => {
    expect(canAcquire({}, "me", 0, 0, 15_000)).toBe(true);
    expect(canAcquire({ holderIdentity: "me" }, "me", 0, 0, 15_000)).toBe(true);
    expect(canAcquire({ holderIdentity: "other" }, "me", 1_000, 15_999, 15_000)).toBe(false);
    expect(canAcquire({ holderIdentity: "other" }, "me", 1_000, 16_000, 15_000)).toBe(true);
  });
});
