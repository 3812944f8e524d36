import { describe, expect, it } from "vitest";
import { allKinds } from "../../../src/apis/index.ts";
import { isConversionFailure } from "../../../src/cli/platform/storage.ts";
import { ApiError } from "../../../src/kube/rest.ts";
import {
  migratedKinds,
  migrationLine,
  storagePlan,
  versionPermissions,
} from "../../../src/operator/storage-migration.ts";
import { gadgetKind } from "../../support/gadget.ts";

describe("storage migration", () => {
  it("migrates only what an older version stored, trimming only where it lists every namespace", () => {
    expect(storagePlan(["v1beta1"], true)).toBe("none");
    expect(storagePlan(undefined, true)).toBe("none");
    expect(storagePlan(["v1alpha1", "v1beta1"], true)).toBe("migrate");
    expect(storagePlan(["v1alpha1"], true)).toBe("migrate");
    expect(storagePlan(["v1alpha1", "v1beta1"], false)).toBe("rewrite-only");
  });

  it("covers every Slipway kind and no kind served at one version", () => {
    expect(migratedKinds([...allKinds, gadgetKind])).toEqual(allKinds);
    expect(versionPermissions([gadgetKind])).toEqual([]);
    const rules = versionPermissions(allKinds);
    expect(rules.filter((rule) => rule.type.plural === "runs")).toEqual([
      { type: expect.objectContaining({ plural: "runs", version: "v1beta1" }), verbs: ["list", "update"] },
    ]);
    const crdRules = rules.filter((rule) => rule.type.plural === "customresourcedefinitions");
    expect(crdRules.map((rule) => [rule.verbs, rule.subresource])).toEqual([
      [["get", "patch"], undefined],
      [["patch"], "status"],
    ]);
    for (const rule of crdRules) expect(rule.resourceNames).toContain("runs.pipelines.slipway.dev");
  });

  it("says what a kind's migration did, and nothing for a kind with nothing to do", () => {
    const crd = "runs.pipelines.slipway.dev";
    expect(migrationLine({ crd, outcome: "migrated", rewritten: 3, storedVersions: ["v1beta1"] })).toBe(
      "storage migrated: runs.pipelines.slipway.dev, 3 objects rewritten at v1beta1, storedVersions trimmed",
    );
    const kept = migrationLine({
      crd,
      outcome: "rewritten",
      rewritten: 1,
      storedVersions: ["v1alpha1", "v1beta1"],
    });
    expect(kept).toContain("storedVersions kept (v1alpha1, v1beta1)");
    expect(kept).toContain("slipway storage migrate");
    expect(
      migrationLine({ crd, outcome: "none", rewritten: 0, storedVersions: ["v1beta1"] }),
    ).toBeUndefined();
    expect(
      migrationLine({ crd, outcome: "not-installed", rewritten: 0, storedVersions: [] }),
    ).toBeUndefined();
  });

  it("tells a conversion webhook that does not answer from other refusals", () => {
    const webhookDown = (status: number) =>
      new ApiError(status, "GET", "/apis/pipelines.slipway.dev/v1beta1/runs", {
        message:
          'conversion webhook for pipelines.slipway.dev/v1alpha1, Kind=Run failed: Post "https://127.0.0.1:1/convert": connection refused',
      });
    expect(isConversionFailure(webhookDown(500))).toBe(true);
    expect(isConversionFailure(webhookDown(429))).toBe(true);
    const forbidden = new ApiError(403, "GET", "/apis/pipelines.slipway.dev/v1beta1/runs", {
      message: 'runs.pipelines.slipway.dev is forbidden: User "x" cannot list resource "runs"',
    });
    expect(isConversionFailure(forbidden)).toBe(false);
    expect(isConversionFailure(new Error("conversion webhook"))).toBe(false);
  });
});
