import { describe, expect, it } from "vitest";
import { cacheId, optionalCacheIds, readKinds } from "../../../src/kube/reads.ts";
import type { ControllerSpec, ResourceType } from "../../../src/kube/types.ts";
import { deriveRbac } from "../../../src/operator/rbac.ts";

const type = (group: string, kind: string, plural: string, fieldSelector?: string): ResourceType => ({
  group,
  version: "v1",
  kind,
  plural,
  namespaced: true,
  ...(fieldSelector ? { fieldSelector } : {}),
});
const gadget = type("test.slipway.dev", "Gadget", "gadgets");
const job = type("batch", "Job", "jobs");
const configMap = type("", "ConfigMap", "configmaps");
const oneConfigMap = type("", "ConfigMap", "configmaps", "metadata.name=settings");
const pod = type("", "Pod", "pods");
const secret = type("", "Secret", "secrets");

const spec: ControllerSpec = {
  name: "gadget",
  for: gadget,
  owns: [job],
  watches: [
    { type: configMap, map: () => [] },
    { type: oneConfigMap, map: () => [] },
  ],
  indexes: [{ type: secret, name: "by-gadget", values: () => [] }],
  reads: [pod, job],
  reconcile: async () => undefined,
  permissions: [],
};

describe("readKinds: the one derivation of what a controller reads", () => {
  it("is for, owns, watches, indexes and reads, each cache once (a field-selected type is a cache of its own)", () => {
    expect(readKinds(spec)).toEqual([gadget, job, configMap, oneConfigMap, secret, pod]);
  });

  it("is what the RBAC generator grants get/list/watch on: an index's kind and a `reads` kind too", () => {
    const readable = deriveRbac([spec], []).namespaced.filter(
      (rule) => rule.verbs.join() === "get,list,watch",
    );
    const resources = readable.flatMap((rule) =>
      rule.apiGroups.flatMap((g) => rule.resources.map((r) => `${g}/${r}`)),
    );
    expect(resources.sort()).toEqual([
      "/configmaps",
      "/pods",
      "/secrets",
      "batch/jobs",
      "test.slipway.dev/gadgets",
    ]);
  });
});

describe("optionalCacheIds: the kinds controllers start without when the API server does not serve them", () => {
  const workflow = type("argoproj.io", "Workflow", "workflows");
  const other: ControllerSpec = {
    ...spec,
    name: "other",
    watches: [{ type: workflow, optional: true, map: () => [] }],
  };

  it("is a kind every controller reading it watches as optional", () => {
    expect([...optionalCacheIds([spec, other])]).toEqual([cacheId(workflow)]);
  });

  it("is not a kind another controller needs (reads, owns or watches it without optional)", () => {
    const needing: ControllerSpec = { ...spec, name: "needing", reads: [workflow] };
    expect([...optionalCacheIds([other, needing])]).toEqual([]);
    const watching: ControllerSpec = {
      ...spec,
      name: "watching",
      watches: [{ type: workflow, map: () => [] }],
    };
    expect([...optionalCacheIds([other, watching])]).toEqual([]);
  });
});
