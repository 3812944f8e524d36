/**
 * The backend finalizer on a Run from the request that creates it: a MutatingAdmissionPolicy
 * (admissionregistration.k8s.io/v1, evaluated by the API server itself, no webhook) and its binding.
 * The operator then has no finalizer PATCH to make before a Run's backend object (kfp and vertex:
 * one Kubernetes write per Run instead of two). Where the policy is not installed, or failed
 * (`failurePolicy: Ignore`), the operator adds the finalizer itself before any backend call, as it
 * always did: the policy saves a write, correctness does not depend on it. It cannot tell which
 * backend a Run's Provider is (a policy reads no other object), so every Run of the namespaces it
 * binds gets the finalizer; on an argo Run that did not need it, deleting the Run deletes its
 * Workflow explicitly instead of through the owner reference. The release installs it bound to the
 * namespaces its operator serves (src/bundle/run-finalizer.ts).
 */
import type { KubeObject, ResourceType } from "../kube/types.ts";
import { finalizer } from "./types.ts";

const admission = "admissionregistration.k8s.io/v1";
const admissionType = (kind: string, plural: string): ResourceType => ({
  group: "admissionregistration.k8s.io",
  version: "v1",
  kind,
  plural,
  namespaced: false,
});
/** The types of the two objects, in runFinalizerPolicy's order. */
export const runFinalizerPolicyTypes = [
  admissionType("MutatingAdmissionPolicy", "mutatingadmissionpolicies"),
  admissionType("MutatingAdmissionPolicyBinding", "mutatingadmissionpolicybindings"),
] as const;

/** The type of one of the two objects, by its kind. */
export function runFinalizerPolicyType(kind: string | undefined): ResourceType {
  const type = runFinalizerPolicyTypes.find((t) => t.kind === kind);
  if (!type) throw new Error(`not a kind of the Run finalizer policy: ${kind}`);
  return type;
}

export const runFinalizerPolicyName = "slipway-run-finalizer";

export interface RunFinalizerPolicyOptions {
  /** The policy's and the binding's name. Default `slipway-run-finalizer`. */
  name?: string;
  labels?: Record<string, string>;
  /**
   * Only Runs in these namespaces (those the operator serves: a finalizer on a Run no operator
   * reconciles would never be removed); every namespace when absent.
   */
  namespaces?: string[];
}

/** The namespaces' selector, by the name label the API server sets on every namespace. */
const namespacesSelector = (namespaces: string[]) => ({
  matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: namespaces }],
});

export function runFinalizerPolicy(options: RunFinalizerPolicyOptions = {}): KubeObject[] {
  const name = options.name ?? runFinalizerPolicyName;
  const metadata = () => ({ name, ...(options.labels ? { labels: { ...options.labels } } : {}) });
  const policy = {
    apiVersion: admission,
    kind: "MutatingAdmissionPolicy",
    metadata: metadata(),
    spec: {
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: ["pipelines.slipway.dev"],
            apiVersions: ["*"],
            operations: ["CREATE"],
            resources: ["runs"],
            // the API server's default, written out: resourceRules is an atomic list, so a rule
            // without it differs from the stored one and `kubectl apply` rewrites it on every apply
            scope: "*",
          },
        ],
      },
      failurePolicy: "Ignore",
      reinvocationPolicy: "Never",
      mutations: [
        {
          patchType: "ApplyConfiguration",
          // finalizers is a set: this adds ours to those the request has
          applyConfiguration: {
            expression: `Object{metadata: Object.metadata{finalizers: ["${finalizer}"]}}`,
          },
        },
      ],
    },
  };
  const binding = {
    apiVersion: admission,
    kind: "MutatingAdmissionPolicyBinding",
    metadata: metadata(),
    spec: {
      policyName: name,
      matchResources: {
        ...(options.namespaces ? { namespaceSelector: namespacesSelector(options.namespaces) } : {}),
        // the API server's default, set so matchResources is never empty (the chart drops the selector)
        matchPolicy: "Equivalent",
      },
    },
  };
  return [policy, binding];
}
