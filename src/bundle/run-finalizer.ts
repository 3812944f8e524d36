/**
 * The bundle's part of the Run finalizer policy (src/pipelines/run-finalizer-policy.ts): the policy
 * and its binding, bound to the namespaces the operator serves — its own, a list, or all — so no Run
 * gets a finalizer that no operator removes. Like the bundle's other cluster-wide objects they are
 * named after the namespace the bundle is placed in (inNamespace), and the binding's own-namespace
 * selector value follows it.
 */
import { runFinalizerPolicy, runFinalizerPolicyTypes } from "../pipelines/run-finalizer-policy.ts";
import type { BundleObject } from "./bundle.ts";
import { placedSelector } from "./webhook.ts";

export const runFinalizerPolicyKinds = runFinalizerPolicyTypes.map((type) => type.kind);
/** The API the policy needs (Kubernetes 1.36; older clusters install without it), as Helm's Capabilities name it. */
export const runFinalizerPolicyApi = "admissionregistration.k8s.io/v1/MutatingAdmissionPolicy";

/** `serves` as in BundleOptions; its own namespace is `""` until the bundle is placed. */
export function runFinalizerPolicyObjects(
  labels: Record<string, string>,
  serves: string[] | "all" | undefined,
): BundleObject[] {
  const namespaces = serves === "all" ? undefined : (serves ?? [""]);
  return runFinalizerPolicy({ labels, ...(namespaces ? { namespaces } : {}) }) as BundleObject[];
}

interface PlacedBinding {
  policyName?: string;
  matchResources?: { namespaceSelector?: Parameters<typeof placedSelector>[0] };
}

/** The binding placed: it names the placed policy, and selects `namespace` where it selected `own`. */
export function placeRunFinalizerPolicyBinding(
  object: BundleObject,
  policyName: string,
  own: string,
  namespace: string,
): BundleObject {
  const spec = (object.spec ?? {}) as PlacedBinding;
  const selector = spec.matchResources?.namespaceSelector;
  return {
    ...object,
    spec: {
      ...spec,
      policyName,
      matchResources: {
        ...spec.matchResources,
        ...(selector ? { namespaceSelector: placedSelector(selector, own, namespace) } : {}),
      },
    },
  };
}
