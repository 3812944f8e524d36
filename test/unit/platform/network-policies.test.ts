import { describe, expect, it } from "vitest";
import { reservedLabelKey } from "../../../src/apis/builds/imagebuild.ts";
import type { ComponentResource } from "../../../src/apis/platform/component.ts";
import { jobLabels } from "../../../src/builds/build-job.ts";
import { bundleFor, defaultResources } from "../../../src/bundle/bundle.ts";
import { catalog, findRelease } from "../../../src/platform/catalog.ts";
import { labels } from "../../../src/platform/component-objects.ts";
import {
  buildPods,
  operatorPods,
  pipelineStepPods,
  renderNetworkPolicies,
} from "../../../src/platform/network-policies.ts";
import { renderComponents } from "../../../src/platform/render.ts";
import { slipwaySelectorKeys } from "../../support/selector-keys.ts";

const release = findRelease("0.2.0");
if (!release) throw new Error("release 0.2.0 missing");

const components: ComponentResource[] = renderComponents("slipway", "ns", {}, release).map((c) => ({
  apiVersion: "platform.slipway.dev/v1beta1",
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
/** The peers of a policy that are not Components' pods. */
const otherPeers = (name: string) =>
  policyOf(name)
    .spec.ingress.flatMap((rule) => rule.from)
    .filter((peer) => {
      const match = (peer as { podSelector?: { matchLabels?: Record<string, string> } }).podSelector;
      return match !== undefined && match.matchLabels?.[labels.component] === undefined;
    });

/** The Components whose pods a policy admits (by their component label). */
const admittedComponents = (name: string) =>
  policyOf(name)
    .spec.ingress.flatMap((rule) => rule.from)
    .map(
      (peer) => (peer as { podSelector?: { matchLabels: Record<string, string> } }).podSelector?.matchLabels,
    )
    .filter((match) => match !== undefined)
    .map((match) => match[labels.component])
    .filter((name) => name !== undefined)
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

  it("the registry and its token issuer (the api-server) admit build pods and the operator; the object store also pipeline steps; mlflow pipeline steps", () => {
    expect(otherPeers("registry")).toEqual([buildPods, operatorPods]);
    expect(otherPeers("api-server")).toEqual([buildPods, operatorPods]);
    expect(otherPeers("object-store")).toEqual([buildPods, pipelineStepPods, operatorPods]);
    expect(otherPeers("mlflow")).toEqual([pipelineStepPods]);
    for (const name of ["postgres", "workflow-engine", "web"]) expect(otherPeers(name)).toEqual([]);
  });

  it("the build and operator peers select the labels the builds code and the bundle put on those pods", () => {
    const build = {
      apiVersion: "builds.slipway.dev/v1beta1",
      kind: "ImageBuild",
      metadata: { name: "b", namespace: "ns" },
      spec: { labels: { team: "a" } },
    } as unknown as Parameters<typeof jobLabels>[0];
    expect(matches(buildPods, jobLabels(build, "registry.example/app:1"))).toBe(true);
    const operator = bundleFor("ns", {
      kinds: [],
      controllers: [],
      image: "example.org/slipway:test",
      imagePullPolicy: "IfNotPresent",
      replicas: 1,
      logLevel: "info",
      resources: defaultResources,
      version: "test",
    }).find((object) => object.kind === "Deployment") as {
      spec: { template: { metadata: { labels: Record<string, string> } } };
    };
    expect(matches(operatorPods, operator.spec.template.metadata.labels)).toBe(true);
  });

  it("a component nothing depends on, not exposed and used by no other pod admits nobody", () => {
    const leaves = components.filter(
      (c) =>
        !c.spec.ingress &&
        !components.some((o) => o.spec.dependencies.includes(c.spec.component)) &&
        otherPeers(c.spec.component).length === 0,
    );
    expect(leaves.map((c) => c.spec.component)).toEqual(["workflow-engine"]);
    for (const leaf of leaves) expect(policyOf(leaf.spec.component).spec.ingress).toEqual([]);
  });
});

/** Whether a peer's podSelector (matchLabels only) selects a pod with `podLabels`. */
function matches(peer: Record<string, unknown>, podLabels: Record<string, string>): boolean {
  const selector = (peer as { podSelector: { matchLabels: Record<string, string> } }).podSelector;
  return Object.entries(selector.matchLabels).every(([key, value]) => podLabels[key] === value);
}

describe("the label keys the NetworkPolicies and build Jobs select by", () => {
  it("are all reserved in an ImageBuild's spec.labels (a build pod cannot pass for a pipeline step or a component)", () => {
    const keys = slipwaySelectorKeys();
    expect(keys).toEqual(
      expect.arrayContaining([
        "workflows.argoproj.io/workflow",
        labels.component,
        "app.kubernetes.io/component",
        "app.kubernetes.io/managed-by",
        "kubernetes.io/metadata.name",
      ]),
    );
    expect(keys.filter((key) => !reservedLabelKey(key))).toEqual([]);
    expect(reservedLabelKey("team")).toBe(false);
    expect(reservedLabelKey("example.com/cost-center")).toBe(false);
  });
});

describe("a NetworkPolicy's dependents", () => {
  it("are listed by name whatever order the Components come in (the cache's order varies)", () => {
    const reversed = renderNetworkPolicies([...components].reverse());
    for (const policy of policies) {
      expect(reversed.find((p) => p.metadata?.name === policy.metadata?.name)).toEqual(policy);
    }
    const dependents = policyOf("object-store")
      .spec.ingress[0]?.from.map(
        (peer) =>
          (peer as { podSelector?: { matchLabels?: Record<string, string> } }).podSelector?.matchLabels?.[
            labels.component
          ],
      )
      .filter((name) => name !== undefined);
    expect(dependents).toEqual([...(dependents ?? [])].sort());
    expect(dependents?.length).toBeGreaterThan(1);
  });
});
