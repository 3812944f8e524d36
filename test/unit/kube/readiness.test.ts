import { describe, expect, it } from "vitest";
import { cacheReadiness } from "../../../src/kube/readiness.ts";

describe("cacheReadiness", () => {
  it("is ready with every cache synced", () => {
    expect(cacheReadiness([{ resource: "v1/pods", state: "synced" }])).toEqual({ ready: true, detail: "ok" });
  });

  it("names each cache and why the unsynced ones are not ready", () => {
    const readiness = cacheReadiness([
      { resource: "v1/pods", state: "synced" },
      { resource: "apps/v1/deployments", state: "syncing" },
      { resource: "missing.slipway.dev/v1/nothings", state: "unserved" },
    ]);
    expect(readiness.ready).toBe(false);
    expect(readiness.detail.split("\n")).toEqual([
      "[+]cache v1/pods ok",
      "[-]cache apps/v1/deployments failed: not synced yet",
      "[-]cache missing.slipway.dev/v1/nothings failed: the API server does not serve it (is its CRD installed?)",
      "readyz check failed",
    ]);
  });

  it("is ready with an optional cache whose kind is not served, and says so; not while it still syncs", () => {
    const pods = { resource: "v1/pods", state: "synced" as const };
    const workflows = { resource: "argoproj.io/v1alpha1/workflows", optional: true };
    expect(cacheReadiness([pods, { ...workflows, state: "unserved" }])).toEqual({
      ready: true,
      detail: "ok",
    });
    const syncing = cacheReadiness([pods, { ...workflows, state: "syncing" }]);
    expect(syncing.ready).toBe(false);
    expect(syncing.detail.split("\n")).toEqual([
      "[+]cache v1/pods ok",
      "[-]cache argoproj.io/v1alpha1/workflows failed: not synced yet",
      "readyz check failed",
    ]);
  });
});
