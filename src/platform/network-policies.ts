/**
 * The NetworkPolicy of a Component (pure): its pods accept connections on its ports only from the
 * pods of the Components that declare a dependency on it, from the pods outside the platform that
 * legitimately use it (image builds, pipeline steps, the operator), and, for an Ingress-exposed one,
 * from the ingress controller. Anything else is refused where the cluster's network plugin enforces
 * policies (docs/security.md: the local real node's does not).
 */
import type { ComponentResource } from "../apis/platform/component.ts";
import type { ComponentName } from "../apis/platform/schemas.ts";
import { buildJobLabels as buildLabels } from "../builds/build-job.ts";
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

/** The pods of an image build's Job (src/builds/build-job.ts jobLabels): context from the object store, push to the registry. */
export const buildPods: NetworkPolicyPeer = {
  podSelector: {
    matchLabels: { [buildLabels.managedBy]: "slipway", [buildLabels.component]: "image-build" },
  },
};

/** Argo labels every pod of a workflow with the workflow's name: pipeline steps (artifacts, MLflow tracking). */
export const pipelineStepPods: NetworkPolicyPeer = {
  podSelector: { matchExpressions: [{ key: "workflows.argoproj.io/workflow", operator: "Exists" }] },
};

/**
 * The operator's pods as the bundle labels them (src/bundle/bundle.ts; a test checks they agree): its
 * builds controller checks the registry for an image and the object store for a build's context.
 */
export const operatorPods: NetworkPolicyPeer = {
  podSelector: {
    matchLabels: { "app.kubernetes.io/name": "slipway", "app.kubernetes.io/component": "operator" },
  },
};

/**
 * Pods of the platform's namespace that are no Component's but use these components. The registry's
 * clients get their tokens from the api-server (src/platform/registry-token.ts), so they reach it too.
 */
const workloadPeers: Partial<Record<ComponentName, NetworkPolicyPeer[]>> = {
  registry: [buildPods, operatorPods],
  "api-server": [buildPods, operatorPods],
  "object-store": [buildPods, pipelineStepPods, operatorPods],
  mlflow: [pipelineStepPods],
};

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
  // by name, not in the order the cache lists them: the same Components render the same policy
  const dependents = dependentsOf(component, components).sort((a, b) =>
    (a.metadata.name ?? "").localeCompare(b.metadata.name ?? ""),
  );
  const peers = [
    ...dependents.map(podsOf),
    ...(workloadPeers[component.spec.component as ComponentName] ?? []),
  ];
  const rules: NetworkPolicyIngressRule[] = peers.length ? [{ from: peers, ports }] : [];
  const exposed = component.spec.ingress ? ports.slice(0, 1) : [];
  if (exposed.length) rules.push({ from: ingressControllers, ports: exposed });
  return rules;
}

/** The NetworkPolicy of `component` (named like it, owned by it), given the platform's Components. */
export function renderNetworkPolicy(
  component: ComponentResource,
  components: ComponentResource[],
  ingressControllers: NetworkPolicyPeer[] = defaultIngressControllers,
): NetworkPolicy {
  return {
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
  };
}

/** The NetworkPolicy of each of a platform's Components. */
export function renderNetworkPolicies(
  components: ComponentResource[],
  ingressControllers: NetworkPolicyPeer[] = defaultIngressControllers,
): NetworkPolicy[] {
  return components.map((component) => renderNetworkPolicy(component, components, ingressControllers));
}
