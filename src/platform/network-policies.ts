/**
 * One NetworkPolicy per Component (pure): its pods accept connections on its ports only from the
 * pods of the Components that declare a dependency on it, and, for an Ingress-exposed one, from the
 * ingress controller. Anything else is refused where the cluster's network plugin enforces policies.
 */
import type { ComponentResource } from "../apis/platform/component.ts";
import { ownerReference } from "../kube/owners.ts";
import type { KubeObject } from "../kube/types.ts";
import { labels, selectorLabels } from "./component-objects.ts";

/** A NetworkPolicy peer and rule as the API takes them (the client's models rename `from`). */
export type NetworkPolicyPeer = Record<string, unknown>;
export interface NetworkPolicyIngressRule {
  from: NetworkPolicyPeer[];
  ports: { protocol: string; port: number }[];
}
export interface NetworkPolicy extends KubeObject {
  spec: { podSelector: unknown; policyTypes: string[]; ingress: NetworkPolicyIngressRule[] };
}

/** Where the ingress controller's pods run: by default the namespace `ingress-nginx`. */
export const defaultIngressControllers: NetworkPolicyPeer[] = [
  { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "ingress-nginx" } } },
];

const podsOf = (component: ComponentResource): NetworkPolicyPeer => ({
  podSelector: { matchLabels: { [labels.component]: component.metadata.name ?? "" } },
});

/** The Components of `components` that declare a dependency on `component` (by catalog name). */
export function dependentsOf(
  component: ComponentResource,
  components: ComponentResource[],
): ComponentResource[] {
  return components.filter((other) => other.spec.dependencies.includes(component.spec.component));
}

function ingressRules(
  component: ComponentResource,
  components: ComponentResource[],
  ingressControllers: NetworkPolicyPeer[],
): NetworkPolicyIngressRule[] {
  const ports = component.spec.ports.map((p) => ({ protocol: "TCP", port: p.port }));
  if (ports.length === 0) return [];
  const dependents = dependentsOf(component, components);
  const rules: NetworkPolicyIngressRule[] = dependents.length
    ? [{ from: dependents.map(podsOf), ports }]
    : [];
  const exposed = component.spec.ingress ? ports.slice(0, 1) : [];
  if (exposed.length) rules.push({ from: ingressControllers, ports: exposed });
  return rules;
}

/** The NetworkPolicy of each of a platform's Components (named like it, owned by it). */
export function renderNetworkPolicies(
  components: ComponentResource[],
  ingressControllers: NetworkPolicyPeer[] = defaultIngressControllers,
): NetworkPolicy[] {
  return components.map((component) => ({
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: {
      name: component.metadata.name ?? "",
      namespace: component.metadata.namespace,
      labels: selectorLabels(component),
      ownerReferences: [ownerReference(component)],
    },
    spec: {
      podSelector: { matchLabels: { [labels.component]: component.metadata.name ?? "" } },
      policyTypes: ["Ingress"],
      ingress: ingressRules(component, components, ingressControllers),
    },
  }));
}
