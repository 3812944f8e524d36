import type { V1PersistentVolumeClaim } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { claimsToAwait } from "../../../src/platform/claim-binding.ts";

const now = new Date("2026-11-30T12:00:00Z");

const claim = (
  name: string,
  storageClassName: string | undefined,
  phase: string,
): V1PersistentVolumeClaim => ({
  metadata: { name, creationTimestamp: new Date("2026-11-30T11:59:30Z") },
  spec: { ...(storageClassName ? { storageClassName } : {}) },
  status: { phase },
});

const classes = [
  { metadata: { name: "standard" } }, // no mode: Immediate
  { metadata: { name: "fast" }, volumeBindingMode: "Immediate" },
  { metadata: { name: "local" }, volumeBindingMode: "WaitForFirstConsumer" },
];

describe("claimsToAwait", () => {
  it("waits for Pending claims whose class binds at once (Immediate, also when unset), with their age", () => {
    expect(
      claimsToAwait([claim("a", "standard", "Pending"), claim("b", "fast", "Pending")], classes, now),
    ).toEqual([
      { name: "a", pendingSeconds: 30 },
      { name: "b", pendingSeconds: 30 },
    ]);
  });

  it("does not wait for Bound claims", () => {
    expect(claimsToAwait([claim("a", "standard", "Bound")], classes, now)).toEqual([]);
  });

  it("does not wait where the pod starts the binding (WaitForFirstConsumer)", () => {
    expect(claimsToAwait([claim("a", "local", "Pending")], classes, now)).toEqual([]);
  });

  it("does not wait for a claim without a class or with a class it cannot see (static volumes)", () => {
    const claims = [claim("a", undefined, "Pending"), claim("b", "gone", "Pending")];
    expect(claimsToAwait(claims, classes, now)).toEqual([]);
  });

  it("waits for a claim just created (no status, no timestamp yet)", () => {
    const created = { metadata: { name: "new" }, spec: { storageClassName: "fast" } };
    expect(claimsToAwait([created], classes, now)).toEqual([{ name: "new", pendingSeconds: 0 }]);
  });
});
