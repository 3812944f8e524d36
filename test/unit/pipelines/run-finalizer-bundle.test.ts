/**
 * The Run finalizer policy in the release bundle: bound to the namespaces the operator serves (its
 * own, a list, all), named after the install's namespace wherever the bundle is placed, and left out
 * by an install on an API server that does not serve its kinds.
 */
import { describe, expect, it } from "vitest";
import { type BundleObject, inNamespace } from "../../../src/bundle/bundle.ts";
import { releaseBundle } from "../../../src/bundle/release.ts";
import { withoutUnservedOptional } from "../../../src/cli/platform/operator-bundle.ts";
import type { KubeObject } from "../../../src/kube/types.ts";
import { finalizer } from "../../../src/pipelines/types.ts";

const policyOf = (objects: BundleObject[]) => ({
  policy: objects.find((o) => o.kind === "MutatingAdmissionPolicy"),
  binding: objects.find((o) => o.kind === "MutatingAdmissionPolicyBinding")?.spec as {
    policyName: string;
    matchResources: { namespaceSelector?: unknown };
  },
});
const namesIn = (values: string[]) => ({
  matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values }],
});

describe("the release bundle's Run finalizer policy", () => {
  it("binds the operator's own namespace by default, named after it", () => {
    const { policy, binding } = policyOf(releaseBundle("ml"));
    expect(policy?.metadata?.name).toBe("slipway-run-finalizer-ml");
    expect(JSON.stringify(policy?.spec)).toContain(finalizer);
    expect(binding.policyName).toBe("slipway-run-finalizer-ml");
    expect(binding.matchResources.namespaceSelector).toEqual(namesIn(["ml"]));
  });

  it("binds the list the operator serves, and every namespace (no selector) when it serves all", () => {
    const listed = policyOf(releaseBundle("ops", { serves: ["team-a", "team-b"] })).binding;
    expect(listed.matchResources.namespaceSelector).toEqual(namesIn(["team-a", "team-b"]));
    const all = policyOf(releaseBundle("ops", { serves: "all" })).binding;
    expect(all.matchResources).toEqual({ matchPolicy: "Equivalent" });
  });

  it("moves with the bundle placed in another namespace (deploy/slipway.yaml installed elsewhere)", () => {
    const { policy, binding } = policyOf(inNamespace(releaseBundle("slipway"), "ml"));
    expect(policy?.metadata?.name).toBe("slipway-run-finalizer-ml");
    expect(binding.policyName).toBe("slipway-run-finalizer-ml");
    expect(binding.matchResources.namespaceSelector).toEqual(namesIn(["ml"]));
  });

  it("is left out where the API server does not serve its kinds; other objects are kept", () => {
    const objects = releaseBundle("ml") as KubeObject[];
    const older = withoutUnservedOptional(objects, new Set(["ValidatingWebhookConfiguration"]));
    expect(objects.length - older.length).toBe(2);
    expect(older.map((o) => o.kind)).not.toContain("MutatingAdmissionPolicy");
    expect(older.map((o) => o.kind)).not.toContain("MutatingAdmissionPolicyBinding");
    const served = new Set(["MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"]);
    expect(withoutUnservedOptional(objects, served)).toEqual(objects);
  });
});
