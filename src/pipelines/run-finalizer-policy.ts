/**
 * The backend finalizer on a Run from the request that creates it: a MutatingAdmissionPolicy
 * (admissionregistration.k8s.io/v1, evaluated by the API server itself, no webhook) and its binding.
 * The operator then has no finalizer PATCH to make before a Run's backend object (kfp and vertex:
 * one Kubernetes write per Run instead of two). Where the policy is not installed, or failed
 * (`failurePolicy: Ignore`), the operator adds the finalizer itself before any backend call, as it
 * always did: the policy saves a write, correctness does not depend on it. It cannot tell which
 * backend a Run's Provider is (a policy reads no other object), so every Run gets the finalizer; on
 * an argo Run that did not need it, deleting the Run deletes its Workflow explicitly instead of
 * through the owner reference.
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

export interface RunFinalizerPolicyOptions {
  /** The policy's and the binding's name. Default `slipway-run-finalizer`. */
  name?: string;
  /** Only Runs in the namespaces these labels select (all namespaces when absent). */
  namespaceLabels?: Record<string, string>;
}

export function runFinalizerPolicy(options: RunFinalizerPolicyOptions = {}): KubeObject[] {
  const name = options.name ?? "slipway-run-finalizer";
  const policy = {
    apiVersion: admission,
    kind: "MutatingAdmissionPolicy",
    metadata: { name },
    spec: {
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: ["pipelines.slipway.dev"],
            apiVersions: ["*"],
            operations: ["CREATE"],
            resources: ["runs"],
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
    metadata: { name },
    spec: {
      policyName: name,
      ...(options.namespaceLabels
        ? { matchResources: { namespaceSelector: { matchLabels: options.namespaceLabels } } }
        : {}),
    },
  };
  return [policy, binding];
}
