import { describe, expect, it } from "vitest";
import type { ComponentResource } from "../../../src/apis/platform/component.ts";
import { catalog, findRelease } from "../../../src/platform/catalog.ts";
import { labels } from "../../../src/platform/component-objects.ts";
import { renderNetworkPolicies } from "../../../src/platform/network-policies.ts";
import { renderComponents } from "../../../src/platform/render.ts";

const release = findRelease("0.2.0");
if (!release) throw new Error("release 0.2.0 missing");

const components: ComponentResource[] = renderComponents("slipway", "ns", {}, release).map((c) => ({
  apiVersion: "platform.slipway.dev/v1alpha1",
  kind: "Component",
  metadata: { name: c.objectName, namespace: "ns", uid: `u-${c.name}` },
  spec: c.spec,
}));

const policies = renderNetworkPolicies(components);
const policyOf = (name: string) => {
  const policy = policies.find((p) => p.metadata?.name === `slipway-${name}`);
  if (!policy) throw new Error(`no policy for ${name}`);
  return policy;
};
/** The Components whose pods a policy admits (by their component label). */
const admittedComponents = (name: string) =>
  policyOf(name)
    .spec.ingress.flatMap((rule) => rule.from)
    .map(
      (peer) => (peer as { podSelector?: { matchLabels: Record<string, string> } }).podSelector?.matchLabels,
    )
    .filter((match) => match !== undefined)
    .map((match) => match[labels.component])
    .sort();

describe("NetworkPolicies from the dependency graph", () => {
  it("one per component, selecting only its pods, Ingress only", () => {
    expect(policies.map((p) => p.metadata?.name)).toEqual(components.map((c) => c.metadata.name));
    for (const policy of policies) {
      expect(policy.spec.podSelector).toEqual({ matchLabels: { [labels.component]: policy.metadata?.name } });
      expect(policy.spec.policyTypes).toEqual(["Ingress"]);
    }
  });

  it("each admits exactly the components that declare a dependency on it (the catalog's dependsOn)", () => {
    for (const entry of catalog) {
      const dependents = catalog
        .filter((other) => (other.dependsOn as readonly string[]).includes(entry.name))
        .map((other) => `slipway-${other.name}`)
        .sort();
      expect(admittedComponents(entry.name), entry.name).toEqual(dependents);
    }
  });

  it("on the component's ports only; the ingress controller only for Ingress-exposed ones", () => {
    const exposed = components.filter((c) => c.spec.ingress).map((c) => c.spec.component);
    expect(exposed.sort()).toEqual(["api-server", "web"]);
    for (const component of components) {
      const rules = policyOf(component.spec.component).spec.ingress;
      for (const rule of rules) {
        expect(rule.ports.map((p) => p.port)).toEqual(
          component.spec.ports.map((p) => p.port).slice(0, rule.ports.length),
        );
      }
      const fromController = rules.some((rule) => rule.from.some((peer) => "namespaceSelector" in peer));
      expect(fromController, component.spec.component).toBe(exposed.includes(component.spec.component));
    }
  });

  it("a component nothing depends on and not exposed admits nobody", () => {
    const leaves = components.filter(
      (c) => !c.spec.ingress && !components.some((o) => o.spec.dependencies.includes(c.spec.component)),
    );
    for (const leaf of leaves) expect(policyOf(leaf.spec.component).spec.ingress).toEqual([]);
  });
});
