import { describe, expect, it } from "vitest";
import { allKinds } from "../../../src/apis/index.ts";
import { migratedKinds, storagePlan, versionPermissions } from "../../../src/operator/storage-migration.ts";
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
});
