import { describe, expect, it } from "vitest";
import { crdDecision, heldElsewhere, objectsToDrain } from "../../../src/cli/platform/uninstall-plan.ts";

const object = (kind: string, namespace: string, name = "x") => ({ kind, namespace, name, finalizers: [] });
const objects = [
  object("ImageBuild", "team-a", "a"),
  object("ImageBuild", "team-a", "b"),
  object("ImageBuild", "team-b"),
  object("Run", "team-b"),
  object("Run", "slipway"),
];

describe("uninstall's CRD decision", () => {
  it("counts, per kind and namespace, the objects of namespaces other than the uninstalled one", () => {
    expect(heldElsewhere(objects, "slipway")).toEqual([
      "ImageBuild: 3 (team-a 2, team-b 1)",
      "Run: 1 (team-b 1)",
    ]);
    expect(heldElsewhere([object("Run", "slipway")], "slipway")).toEqual([]);
  });

  it("deletes the CRDs only when no other namespace holds objects of them, or when --delete-crds says so", () => {
    expect(crdDecision({}, true, objects, "slipway")).toEqual({
      delete: false,
      why: "held",
      held: "ImageBuild: 3 (team-a 2, team-b 1); Run: 1 (team-b 1)",
    });
    expect(crdDecision({}, true, [object("Run", "slipway")], "slipway")).toEqual({ delete: true });
    expect(crdDecision({ deleteCrds: true }, true, objects, "slipway")).toEqual({ delete: true });
    expect(crdDecision({ keepCrds: true }, true, [], "slipway")).toEqual({ delete: false, why: "asked" });
    expect(crdDecision({}, false, [], "slipway")).toEqual({ delete: false, why: "absent" });
  });

  it("drains every object when the CRDs go, the namespace's when only it goes, none otherwise", () => {
    expect(objectsToDrain(objects, "slipway", { crds: true, namespace: false })).toEqual(objects);
    expect(objectsToDrain(objects, "slipway", { crds: false, namespace: true })).toEqual([
      object("Run", "slipway"),
    ]);
    expect(objectsToDrain(objects, "slipway", { crds: false, namespace: false })).toEqual([]);
  });
});
