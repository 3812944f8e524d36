import { describe, expect, it } from "vitest";
import { allControllers } from "../../../src/operator/controllers.ts";
import { deriveRbac } from "../../../src/operator/rbac.ts";

const verbsOn = (group: string, resource: string) =>
  deriveRbac(allControllers())
    .namespaced.filter((rule) => rule.apiGroups.includes(group) && rule.resources.includes(resource))
    .flatMap((rule) => rule.verbs)
    .sort();

describe("the operator's derived RBAC grants no right its controllers do not use", () => {
  it("ServiceAccounts: created and applied, never deleted (the garbage collector removes a Component's)", () => {
    expect(verbsOn("", "serviceaccounts")).toEqual(["create", "get", "list", "patch", "watch"]);
  });

  it.each([
    ["apps", "deployments"],
    ["apps", "statefulsets"],
    ["", "services"],
    ["", "persistentvolumeclaims"],
    ["", "configmaps"],
    ["networking.k8s.io", "networkpolicies"],
  ])("no delete on %s %s (a Component's children go with it)", (group, resource) => {
    expect(verbsOn(group, resource)).not.toContain("delete");
  });

  it("delete on Ingresses: the component controller removes one it no longer renders", () => {
    expect(verbsOn("networking.k8s.io", "ingresses")).toContain("delete");
  });
});
