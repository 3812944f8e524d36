import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/kube/rest.ts";
import type { KubeObject } from "../../../src/kube/types.ts";
import { annotations } from "../../../src/platform/component-objects.ts";
import {
  conflictResolution,
  immutableFields,
  immutableRefusal,
  recreatedMessage,
  refusedMessage,
  resolveImmutable,
} from "../../../src/platform/immutable-fields.ts";

describe("immutableFields", () => {
  const statefulSet = (claims: string[]) => ({
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: "db" },
    spec: {
      serviceName: "db",
      selector: { matchLabels: { app: "db" } },
      volumeClaimTemplates: claims.map((name) => ({
        metadata: { name },
        spec: { accessModes: ["ReadWriteOnce"] },
      })),
    },
  });
  const forbidden = {
    reason: "FieldValueForbidden",
    field: "spec",
    message:
      "Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
  };

  it("narrows a StatefulSet's `spec` refusal to the immutable fields the rendering changes", () => {
    const live = statefulSet(["data"]);
    // the API server defaults fields the rendering leaves out: still the same template
    live.spec.volumeClaimTemplates[0] = {
      ...(live.spec.volumeClaimTemplates[0] as {
        metadata: { name: string };
        spec: { accessModes: string[] };
      }),
      spec: { accessModes: ["ReadWriteOnce"], volumeMode: "Filesystem" } as { accessModes: string[] },
    };
    expect(immutableFields("StatefulSet", [forbidden], live, statefulSet(["data"]))).toEqual(["spec"]);
    expect(immutableFields("StatefulSet", [forbidden], live, statefulSet(["pgdata"]))).toEqual([
      "spec.volumeClaimTemplates",
    ]);
  });

  it("takes the field a cause names; a refusal for another reason is not a conflict", () => {
    const selector = {
      reason: "FieldValueInvalid",
      field: "spec.selector",
      message: 'Invalid value: {"matchLabels":{"app":"b"}}: field is immutable',
    };
    const deployment = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d" } };
    expect(immutableFields("Deployment", [selector], deployment, deployment)).toEqual(["spec.selector"]);
    const required = { reason: "FieldValueRequired", field: "spec.template", message: "Required value" };
    expect(immutableFields("Deployment", [required], deployment, deployment)).toBeUndefined();
  });
});

const hashed = (kind: string, hash: string, spec: object = {}): KubeObject =>
  ({
    apiVersion: "apps/v1",
    kind,
    metadata: { name: "slipway-postgres", annotations: { [annotations.appliedHash]: hash } },
    spec,
  }) as KubeObject;

describe("immutableRefusal", () => {
  const body = (causes: object[]) => ({ message: "invalid", reason: "Invalid", details: { causes } });
  const selector = { field: "spec.selector", message: "field is immutable" };

  it("is a 422 naming an immutable field, and nothing else", () => {
    const live = hashed("Deployment", "a");
    const rendered = hashed("Deployment", "b");
    const refused = new ApiError(422, "PATCH", "/d", body([selector]));
    expect(immutableRefusal(refused, "Deployment", live, rendered)).toEqual({
      kind: "Deployment",
      fields: ["spec.selector"],
      live,
      rendered,
    });
    const invalid = new ApiError(
      422,
      "PATCH",
      "/d",
      body([{ field: "spec.replicas", message: "must be >= 0" }]),
    );
    expect(immutableRefusal(invalid, "Deployment", live, rendered)).toBeUndefined();
    expect(
      immutableRefusal(new ApiError(409, "PATCH", "/d", body([selector])), "Deployment", live, rendered),
    ).toBeUndefined();
    expect(immutableRefusal(new Error("field is immutable"), "Deployment", live, rendered)).toBeUndefined();
  });
});

describe("resolveImmutable", () => {
  const refusal = (
    kind: string,
    fields: string[],
    live = hashed(kind, "old"),
    rendered = hashed(kind, "new"),
  ) => ({
    kind,
    fields,
    live,
    rendered,
  });

  it("recreates a StatefulSet whose claim templates changed with its pods orphaned, for the new one to adopt", () => {
    expect(resolveImmutable(refusal("StatefulSet", ["spec.volumeClaimTemplates"]))).toEqual({
      action: "recreate",
      kind: "StatefulSet",
      fields: ["spec.volumeClaimTemplates"],
      propagationPolicy: "Orphan",
    });
    expect(resolveImmutable(refusal("StatefulSet", ["spec.podManagementPolicy"]))).toMatchObject({
      propagationPolicy: "Orphan",
    });
  });

  it("replaces the pods when the new StatefulSet would not adopt them or names another Service, and a Deployment's always", () => {
    for (const fields of [
      ["spec.selector"],
      ["spec.serviceName"],
      ["spec.volumeClaimTemplates", "spec.selector"],
      ["spec"],
    ]) {
      expect(resolveImmutable(refusal("StatefulSet", fields))).toMatchObject({
        action: "recreate",
        propagationPolicy: "Background",
      });
    }
    expect(resolveImmutable(refusal("Deployment", ["spec.selector"]))).toEqual({
      action: "recreate",
      kind: "Deployment",
      fields: ["spec.selector"],
      propagationPolicy: "Background",
    });
  });

  it("does not recreate what was already created from this rendering: a second refusal fails, no loop", () => {
    const resolution = resolveImmutable(
      refusal(
        "StatefulSet",
        ["spec.volumeClaimTemplates"],
        hashed("StatefulSet", "same"),
        hashed("StatefulSet", "same"),
      ),
    );
    expect(resolution).toMatchObject({
      action: "fail",
      why: expect.stringContaining("already created from this rendering"),
    });
  });

  it("never recreates a claim or another kind, nor deletes a StatefulSet's pods along with claims it would delete", () => {
    expect(resolveImmutable(refusal("PersistentVolumeClaim", ["spec.accessModes"]))).toMatchObject({
      action: "fail",
      why: expect.stringContaining("lose its data"),
    });
    expect(resolveImmutable(refusal("Service", ["spec.clusterIP"]))).toMatchObject({ action: "fail" });
    const deletesClaims = hashed("StatefulSet", "old", {
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" },
    });
    expect(resolveImmutable(refusal("StatefulSet", ["spec.selector"], deletesClaims))).toMatchObject({
      action: "fail",
      why: expect.stringContaining("whenDeleted: Delete"),
    });
    // orphaned pods keep their claims: orphaning is safe even then
    expect(
      resolveImmutable(refusal("StatefulSet", ["spec.volumeClaimTemplates"], deletesClaims)),
    ).toMatchObject({
      action: "recreate",
      propagationPolicy: "Orphan",
    });
  });
});

describe("what is said about it", () => {
  const object = { kind: "StatefulSet", namespace: "ml", name: "slipway-postgres" };

  it("the dry run says what the controller will do and what is kept", () => {
    const orphan = resolveImmutable({
      kind: "StatefulSet",
      fields: ["spec.volumeClaimTemplates"],
      live: hashed("StatefulSet", "old"),
      rendered: hashed("StatefulSet", "new"),
    });
    expect(conflictResolution(orphan, object, ["slipway-postgres-database"])).toBe(
      "recreate StatefulSet ml/slipway-postgres (spec.volumeClaimTemplates is immutable): deleted with propagationPolicy Orphan, so its pods keep running until the new StatefulSet adopts them; its PersistentVolumeClaim slipway-postgres-database and their data are kept",
    );
    const background = resolveImmutable({
      kind: "Deployment",
      fields: ["spec.selector"],
      live: hashed("Deployment", "old"),
      rendered: hashed("Deployment", "new"),
    });
    expect(conflictResolution(background, { ...object, kind: "Deployment" }, [])).toMatch(
      /^recreate Deployment ml\/slipway-postgres \(spec\.selector is immutable\): deleted with propagationPolicy Background/,
    );
  });

  it("keeps `will fail` for what is not recreated, with the way through by hand", () => {
    const claim = resolveImmutable({
      kind: "PersistentVolumeClaim",
      fields: ["spec.accessModes"],
      live: undefined,
      rendered: hashed("PersistentVolumeClaim", "x"),
    });
    const text = conflictResolution(claim, { ...object, kind: "PersistentVolumeClaim" }, []);
    expect(text).toMatch(/^will fail: the API server refuses the change to spec.accessModes/);
    expect(text).toContain("a claim is never recreated");
    const again = resolveImmutable({
      kind: "StatefulSet",
      fields: ["spec.selector"],
      live: hashed("StatefulSet", "same"),
      rendered: hashed("StatefulSet", "same"),
    });
    expect(conflictResolution(again, object, [])).toContain(
      "kubectl delete statefulset slipway-postgres -n ml",
    );
    expect(again.action === "fail" && refusedMessage(again, "slipway-postgres")).toBe(
      "StatefulSet slipway-postgres cannot be updated: spec.selector is immutable and it is not recreated: the StatefulSet was already created from this rendering and is refused again",
    );
  });

  it("the Event names the object and the field", () => {
    const resolution = resolveImmutable({
      kind: "StatefulSet",
      fields: ["spec.volumeClaimTemplates"],
      live: hashed("StatefulSet", "old"),
      rendered: hashed("StatefulSet", "new"),
    });
    expect(resolution.action === "recreate" && recreatedMessage(resolution, "slipway-postgres", [])).toBe(
      "StatefulSet slipway-postgres is recreated: spec.volumeClaimTemplates is immutable; deleted with propagationPolicy Orphan, so its pods keep running until the new StatefulSet adopts them; its PersistentVolumeClaims and their data are kept",
    );
  });
});
