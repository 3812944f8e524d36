import { describe, expect, it } from "vitest";
import { keepPatch, keptFor, keptForAnnotation } from "../../../src/platform/kept-data.ts";

const owner = { apiVersion: "platform.slipway.dev/v1beta1", kind: "Platform", name: "slipway", uid: "u1" };
const kept = (annotations?: Record<string, string>, ownerReferences?: (typeof owner)[]) => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name: "slipway-postgres-database", namespace: "ns", annotations, ownerReferences },
});

describe("what uninstall --keep-data keeps", () => {
  it("keeps an object unowned and marked with its Platform", () => {
    expect(keepPatch("slipway")).toEqual({
      metadata: { ownerReferences: null, annotations: { [keptForAnnotation]: "slipway" } },
    });
  });

  it("is taken back only when unowned and marked for the Platform taking it", () => {
    expect(keptFor(kept({ [keptForAnnotation]: "slipway" }), "slipway")).toBe(true);
    expect(keptFor(kept({ [keptForAnnotation]: "other" }), "slipway")).toBe(false);
    expect(keptFor(kept(), "slipway")).toBe(false);
    expect(keptFor(kept({ [keptForAnnotation]: "slipway" }, [owner]), "slipway")).toBe(false);
  });
});
