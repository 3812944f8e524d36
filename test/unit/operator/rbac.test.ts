import { describe, expect, it } from "vitest";
import { bundleFor } from "../../../src/bundle/bundle.ts";
import { allControllers } from "../../../src/operator/controllers.ts";
import { deriveRbac, type PolicyRule, runtimePermissions } from "../../../src/operator/rbac.ts";
import { webhookPermissions, webhookSecretName } from "../../../src/operator/webhooks.ts";
import { bundleOptions } from "../../support/operator-rbac.ts";

const verbsOn = (group: string, resource: string) =>
  deriveRbac(allControllers())
    .namespaced.filter((rule) => rule.apiGroups.includes(group) && rule.resources.includes(resource))
    .flatMap((rule) => rule.verbs)
    .sort();

describe("the operator's derived RBAC grants no right its controllers do not use", () => {
  it.each([
    ["", "serviceaccounts"],
    ["", "services"],
    ["", "persistentvolumeclaims"],
    ["", "configmaps"],
    ["networking.k8s.io", "networkpolicies"],
    ["networking.k8s.io", "ingresses"],
    ["apps", "deployments"],
    ["apps", "statefulsets"],
  ])(
    "delete on %s %s: the component controller prunes a Component's children (its inventory) and recreates an immutable workload",
    (group, resource) => {
      expect(verbsOn(group, resource)).toContain("delete");
    },
  );
});

describe("the operator's Secrets by name (resourceNames)", () => {
  const secretRules = (rules: PolicyRule[]) => rules.filter((rule) => rule.resources.includes("secrets"));

  it("updates only the webhook's serving Secret; the rest of its Secret rights name no object", () => {
    const rules = secretRules(
      deriveRbac(allControllers(), [...runtimePermissions, ...webhookPermissions]).namespaced,
    );
    expect(rules).toEqual([
      { apiGroups: [""], resources: ["secrets"], verbs: ["create", "delete", "get", "patch"] },
      {
        apiGroups: [""],
        resources: ["secrets"],
        verbs: ["get", "update"],
        resourceNames: [webhookSecretName],
      },
    ]);
  });

  it("serving other namespaces, its own namespace's Role reads and rotates the webhook's Secret only", () => {
    const leader = bundleFor("ops", { ...bundleOptions(allControllers()), serves: ["team-a"] }).find(
      (object) => object.kind === "Role" && object.metadata?.namespace === "ops",
    ) as { rules: PolicyRule[] } | undefined;
    expect(secretRules(leader?.rules ?? [])).toEqual([
      { apiGroups: [""], resources: ["secrets"], verbs: ["create"] },
      {
        apiGroups: [""],
        resources: ["secrets"],
        verbs: ["get", "update"],
        resourceNames: [webhookSecretName],
      },
    ]);
  });
});
