import { readdir } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { argoMinimalCrds, replaceableEngineCrd } from "../../../src/pipelines/argo/crds.ts";
import { argoCrdDirectory, argoCrds } from "../../support/fakes/argo-crds.ts";

type Crd = {
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: Record<string, unknown>;
    versions: { name: string; served: boolean; storage: boolean; subresources?: unknown }[];
  };
};

/** What a minimal CRD must agree on with Argo's own: everything but the schema. */
const identity = (crd: Crd) => ({
  name: crd.metadata.name,
  group: crd.spec.group,
  scope: crd.spec.scope,
  names: crd.spec.names,
  versions: crd.spec.versions.map(({ name, served, storage, subresources }) => ({
    name,
    served,
    storage,
    statusSubresource: Boolean((subresources as { status?: unknown } | undefined)?.status),
  })),
});

describe("the workflow engine's minimal CRDs (written by src/pipelines/argo/crds.ts)", () => {
  // Argo's YAML is large (megabytes): parsing it takes seconds on a busy machine
  it("name, group, names, scope, versions and subresources of every kind Argo ships, as Argo's own", {
    timeout: 60_000,
  }, async () => {
    const plurals = (await readdir(argoCrdDirectory("minimal")))
      .map((file) => /^argoproj\.io_(\w+)\.yaml$/.exec(file)?.[1])
      .filter((plural): plural is string => plural !== undefined);
    expect(plurals.length).toBeGreaterThanOrEqual(8);
    const argo = (await argoCrds(plurals, "minimal")) as unknown as Crd[];
    const ours = argoMinimalCrds("v3.6.2") as unknown as Crd[];
    const byName = (crds: Crd[]) => crds.map(identity).sort((a, b) => a.name.localeCompare(b.name));
    expect(byName(ours)).toEqual(byName(argo));
  });

  it("keeps every field of an object (no schema) and carries the Argo version", () => {
    for (const crd of argoMinimalCrds("v3.6.2", { "app.kubernetes.io/part-of": "slipway" })) {
      const schema = crd.spec.versions as { schema: { openAPIV3Schema: Record<string, unknown> } }[];
      expect(schema[0]?.schema.openAPIV3Schema["x-kubernetes-preserve-unknown-fields"]).toBe(true);
      expect(crd.metadata.labels).toMatchObject({
        "slipway.dev/argo-version": "v3.6.2",
        "app.kubernetes.io/part-of": "slipway",
      });
    }
  });

  it("an install may replace a missing or schema-less CRD, never Argo's own with full schemas", {
    timeout: 60_000,
  }, async () => {
    expect(replaceableEngineCrd(undefined)).toBe(true);
    for (const crd of argoMinimalCrds("v3.6.2")) expect(replaceableEngineCrd(crd)).toBe(true);
    for (const crd of await argoCrds(["workflowtemplates"])) expect(replaceableEngineCrd(crd)).toBe(false);
    for (const crd of await argoCrds(["workflowtemplates", "cronworkflows"], "minimal")) {
      expect(replaceableEngineCrd(crd)).toBe(true);
    }
  });
});
