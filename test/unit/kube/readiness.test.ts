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
});
