import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ConvertibleObject, convert, fromOlder, toOlder } from "../../../src/apis/conversion.ts";
import { crdManifest, objectSchema } from "../../../src/apis/crd.ts";
import { allKinds } from "../../../src/apis/index.ts";
import { olderPrinterColumns, olderSchema } from "../../../src/apis/older-schema.ts";
import { RunKind } from "../../../src/apis/pipelines/run.ts";
import { SchemaError, type SchemaNode } from "../../../src/apis/structural.ts";
import {
  lackedFieldsAnnotation,
  type OlderVersion,
  olderVersionsOf,
  storageVersion,
  versionedKinds,
} from "../../../src/apis/versions.ts";
import { inNamespace } from "../../../src/bundle/bundle.ts";
import { releaseBundle } from "../../../src/bundle/release.ts";
import { crdConversionAt, crdWithoutConversion } from "../../../src/bundle/webhook.ts";
import { gadgetKind as gadget } from "../../support/gadget.ts";

// biome-ignore lint/suspicious/noExplicitAny: generated CRDs and objects are read as JSON
type Any = any;

const versionsOf = (kind: (typeof allKinds)[number]) =>
  (crdManifest(kind).spec.versions as Any[]).map((v) => ({
    name: v.name,
    served: v.served,
    storage: v.storage,
  }));

const columns = (version: Any) =>
  (version.additionalPrinterColumns as Any[]).map(
    (c) => `${c.name}=${c.jsonPath}${c.priority ? ` (wide)` : ""}`,
  );

const runCrdVersion = (name: string): Any =>
  (crdManifest(RunKind).spec.versions as Any[]).find((v) => v.name === name);

describe("every kind at v1beta1 (storage) and v1alpha1 (served)", () => {
  it("is in the versions table and its CRD serves both, storing v1beta1", () => {
    expect(allKinds.map((kind) => `${kind.group}/${kind.kind}`).sort()).toEqual(versionedKinds().sort());
    for (const kind of allKinds) {
      expect(kind.version).toBe(storageVersion);
      expect(versionsOf(kind)).toEqual([
        { name: "v1beta1", served: true, storage: true },
        { name: "v1alpha1", served: true, storage: false },
      ]);
    }
  });

  it("a kind not in the table (a test's) is served at its own version only", () => {
    expect(olderVersionsOf(gadget)).toEqual([]);
    expect(versionsOf(gadget).map((v) => v.name)).toEqual([gadget.version]);
  });

  it("derives v1alpha1's schema from v1beta1's: only the Run's completedAt moved", () => {
    for (const kind of allKinds) {
      const [older] = olderVersionsOf(kind);
      const derived = olderSchema(objectSchema(kind), older as OlderVersion, kind.kind);
      const crd = (crdManifest(kind).spec.versions as Any[])[1];
      expect(crd.schema.openAPIV3Schema).toEqual(derived);
      if (kind.kind !== "Run") expect(derived).toEqual(objectSchema(kind));
    }
    const status = (name: string) => runCrdVersion(name).schema.openAPIV3Schema.properties.status.properties;
    expect(Object.keys(status("v1beta1"))).toContain("completedAt");
    expect(Object.keys(status("v1beta1"))).not.toContain("markedCompletedAt");
    expect(Object.keys(status("v1alpha1"))).toContain("markedCompletedAt");
    expect(Object.keys(status("v1alpha1"))).not.toContain("completedAt");
    expect(status("v1alpha1").markedCompletedAt).toEqual(status("v1beta1").completedAt);
  });

  it("a Run's columns at v1beta1 show its outcome, the synchronization only wide; v1alpha1 keeps its own", () => {
    expect(columns(runCrdVersion("v1beta1"))).toEqual([
      "Pipeline=.spec.pipeline",
      "Provider=.spec.provider",
      "Completion=.status.completionState",
      "Sync=.status.state (wide)",
      "Age=.metadata.creationTimestamp",
    ]);
    expect(columns(runCrdVersion("v1alpha1"))).toEqual([
      "Pipeline=.spec.pipeline",
      "Provider=.spec.provider",
      "State=.status.state",
      "Completion=.status.completionState",
      "Age=.metadata.creationTimestamp",
    ]);
  });

  it("a pipeline kind's State column is Sync at v1beta1", () => {
    const pipeline = allKinds.find((kind) => kind.kind === "Pipeline");
    const [beta, alpha] = crdManifest(pipeline as (typeof allKinds)[number]).spec.versions as Any[];
    expect(columns(beta)).toContain("Sync=.status.state");
    expect(columns(alpha)).toContain("State=.status.state");
    expect(columns(alpha)).not.toContain("Sync=.status.state");
  });
});

describe("olderSchema", () => {
  const root: SchemaNode = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: { a: { type: "string" }, b: { type: "integer" } },
        required: ["a"],
        "x-kubernetes-validations": [{ rule: "self.b > 0", message: "b" }],
      },
    },
  };
  const older = (changes: Partial<OlderVersion>): OlderVersion => ({
    name: "v1alpha1",
    renames: {},
    lacks: [],
    ...changes,
  });

  it("moves a renamed field with its required entry and drops a lacked one", () => {
    const derived = olderSchema(root, older({ renames: { "spec.a": "spec.oldA" } }), "K") as Any;
    expect(Object.keys(derived.properties.spec.properties).sort()).toEqual(["b", "oldA"]);
    expect(derived.properties.spec.required).toEqual(["oldA"]);
    expect(Object.keys((root as Any).properties.spec.properties).sort()).toEqual(["a", "b"]);
    const lacking = olderSchema(root, older({ lacks: ["spec.a"] }), "K") as Any;
    expect(Object.keys(lacking.properties.spec.properties)).toEqual(["b"]);
    expect(lacking.properties.spec.required).toBeUndefined();
  });

  it("refuses a rename of a field a CEL rule names, or of no field", () => {
    expect(() => olderSchema(root, older({ renames: { "spec.b": "spec.oldB" } }), "K")).toThrow(
      "kind K v1alpha1: .spec.b is named by a CEL rule of its object; it cannot move",
    );
    expect(() => olderSchema(root, older({ renames: { "spec.c": "spec.d" } }), "K")).toThrow(SchemaError);
    expect(() => olderSchema(root, older({ renames: { "spec.a": "spec.b" } }), "K")).toThrow(
      ".spec.b is already a field",
    );
  });

  it("printer columns follow a rename", () => {
    const cols = olderPrinterColumns(
      [{ name: "A", type: "string", jsonPath: ".spec.a" }],
      older({ renames: { "spec.a": "spec.oldA" } }),
    );
    expect(cols).toEqual([{ name: "A", type: "string", jsonPath: ".spec.oldA" }]);
  });
});

const run = (status: Any, metadata: Any = { name: "r", namespace: "ml" }): ConvertibleObject => ({
  apiVersion: "pipelines.slipway.dev/v1beta1",
  kind: "Run",
  metadata,
  spec: { provider: "argo", pipeline: "train" },
  status,
});

describe("conversion", () => {
  it("a Run's completedAt is markedCompletedAt at v1alpha1, and back", () => {
    const beta = run({ completionState: "Failed", completedAt: "2026-01-01T00:00:00Z", state: "Succeeded" });
    const alpha = convert(beta, "pipelines.slipway.dev/v1alpha1") as { converted: Any };
    expect(alpha.converted).toEqual({
      ...beta,
      apiVersion: "pipelines.slipway.dev/v1alpha1",
      status: { completionState: "Failed", markedCompletedAt: "2026-01-01T00:00:00Z", state: "Succeeded" },
    });
    expect(convert(alpha.converted as ConvertibleObject, "pipelines.slipway.dev/v1beta1")).toEqual({
      converted: beta,
    });
    expect(beta.status).toEqual({
      completionState: "Failed",
      completedAt: "2026-01-01T00:00:00Z",
      state: "Succeeded",
    });
  });

  it("every kind round-trips both ways unchanged (random objects)", () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    const object = fc.record({
      kind: fc.constantFrom(...allKinds),
      spec: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), json, { maxKeys: 4 }),
      status: fc.option(
        fc.record(
          { completedAt: fc.option(fc.string(), { nil: undefined }), other: json },
          { requiredKeys: [] },
        ),
        { nil: undefined },
      ),
      annotations: fc.option(fc.dictionary(fc.string({ minLength: 1 }), fc.string(), { maxKeys: 2 }), {
        nil: undefined,
      }),
    });
    fc.assert(
      fc.property(object, ({ kind, spec, status, annotations }) => {
        const beta: ConvertibleObject = {
          apiVersion: `${kind.group}/v1beta1`,
          kind: kind.kind,
          metadata: { name: "x", ...(annotations ? { annotations } : {}) },
          spec,
          ...(status ? { status: JSON.parse(JSON.stringify(status)) } : {}),
        };
        const alpha = convert(beta, `${kind.group}/v1alpha1`) as { converted: ConvertibleObject };
        expect(alpha.converted.apiVersion).toBe(`${kind.group}/v1alpha1`);
        expect(convert(alpha.converted, `${kind.group}/v1beta1`)).toEqual({ converted: beta });
        const back = convert(alpha.converted, `${kind.group}/v1beta1`) as { converted: ConvertibleObject };
        expect(convert(back.converted, `${kind.group}/v1alpha1`)).toEqual(alpha);
      }),
    );
  });

  it("fields v1alpha1 lacks travel in an annotation and come back; other annotations stay", () => {
    const older: OlderVersion = { name: "v1alpha1", renames: {}, lacks: ["spec.retries", "status.phase"] };
    const beta = run({ phase: "Running", state: "Succeeded" }, { name: "r", annotations: { team: "a" } });
    (beta.spec as Any).retries = { limit: 2 };
    const alpha = toOlder(beta, older);
    expect(alpha.spec).toEqual({ provider: "argo", pipeline: "train" });
    expect(alpha.status).toEqual({ state: "Succeeded" });
    expect(alpha.metadata?.annotations).toEqual({
      team: "a",
      [lackedFieldsAnnotation]: JSON.stringify({ "spec.retries": { limit: 2 }, "status.phase": "Running" }),
    });
    expect(fromOlder(alpha, older)).toEqual(beta);
    // an object that had no annotations has none after the round trip
    const bare = run({ phase: "Pending" }, { name: "r" });
    expect(fromOlder(toOlder(bare, older), older)).toEqual(bare);
    // nothing lacked: no annotation
    expect(toOlder(run({ state: "Creating" }), older).metadata?.annotations).toBeUndefined();
    // an annotation edited into something else is dropped, the object kept
    const edited = { ...alpha, metadata: { name: "r", annotations: { [lackedFieldsAnnotation]: "{" } } };
    expect(fromOlder(edited, older).status).toEqual({ state: "Succeeded" });
    expect(fromOlder(edited, older).metadata).toEqual({ name: "r" });
  });

  it("refuses a version or group it does not serve, naming it", () => {
    expect(convert(run({}), "pipelines.slipway.dev/v2")).toEqual({
      refused: "Run is not served at pipelines.slipway.dev/v2",
    });
    expect(convert(run({}), "builds.slipway.dev/v1alpha1")).toEqual({
      refused: "cannot convert pipelines.slipway.dev/v1beta1 to another group's builds.slipway.dev/v1alpha1",
    });
    expect(convert(run({}), "pipelines.slipway.dev/v1beta1")).toEqual({ converted: run({}) });
  });
});

describe("the CRDs' conversion in the bundle", () => {
  const runCrd = (objects: Any[]) =>
    objects.find(
      (o) => o.kind === "CustomResourceDefinition" && o.metadata.name === "runs.pipelines.slipway.dev",
    );

  it("names the operator's Service in the namespace the bundle is placed in, and nothing for a test kind", () => {
    const placed = releaseBundle("ml");
    expect(runCrd(placed).spec.conversion).toEqual({
      strategy: "Webhook",
      webhook: {
        conversionReviewVersions: ["v1"],
        clientConfig: {
          service: { namespace: "ml", name: "slipway-operator-webhook", path: "/convert", port: 443 },
        },
      },
    });
    expect(runCrd(inNamespace(placed, "ops")).spec.conversion.webhook.clientConfig.service.namespace).toBe(
      "ops",
    );
    expect(
      crdManifest(gadget, { conversionService: { namespace: "ml", name: "x" } }).spec.conversion,
    ).toBeUndefined();
  });

  it("a URL for an operator outside the cluster (slipway dev), none for install --dev", () => {
    const crd = runCrd(releaseBundle("ml"));
    expect((crdConversionAt(crd, "https://127.0.0.1:9443/convert") as Any).spec.conversion.webhook).toEqual({
      conversionReviewVersions: ["v1"],
      clientConfig: { url: "https://127.0.0.1:9443/convert" },
    });
    const without = crdWithoutConversion(crd) as Any;
    expect(without.spec.conversion).toBeUndefined();
    expect(without.spec.versions).toEqual(crd.spec.versions);
  });
});
