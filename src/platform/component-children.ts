/**
 * Every object the component controller writes for a Component, as it writes them (pure): the one
 * list the controller's ownership check and `slipway update --dry-run` both read.
 */
import type { ComponentResource } from "../apis/platform/component.ts";
import type { KubeObject, ResourceType } from "../kube/types.ts";
import {
  annotations,
  objectHash,
  renderClaims,
  renderConfigMap,
  renderIngress,
  renderService,
  renderServiceAccount,
  renderWorkload,
} from "./component-objects.ts";
import { renderNetworkPolicy } from "./network-policies.ts";
import { types } from "./resource-types.ts";

/** The kinds a Component's children come in (each labelled with the Component's name). */
export const childTypes: readonly ResourceType[] = [
  types.deployment,
  types.statefulSet,
  types.serviceAccount,
  types.componentConfigMap,
  types.pvc,
  types.service,
  types.networkPolicy,
  types.ingress,
];

/** The child type an inventory entry (group and kind) names. */
export const childTypeOf = (entry: { group: string; kind: string }) =>
  childTypes.find((type) => type.group === entry.group && type.kind === entry.kind);

export const workloadTypeOf = (component: ComponentResource) =>
  component.spec.workload === "StatefulSet" ? types.statefulSet : types.deployment;

/** `object` carrying the hash of its rendering, which tells a later reconcile it needs no write. */
export function annotated<T extends KubeObject>(object: T): T {
  const hash = objectHash(object);
  return {
    ...object,
    metadata: {
      ...object.metadata,
      annotations: { ...object.metadata?.annotations, [annotations.appliedHash]: hash },
    },
  };
}

/**
 * Every object the Component would write, with its kind, given the other Components of its Platform
 * (its NetworkPolicy admits those that depend on it).
 */
export function renderedChildren(
  component: ComponentResource,
  siblings: ComponentResource[],
): [ResourceType, KubeObject][] {
  const children: [ResourceType, KubeObject | undefined][] = [
    [workloadTypeOf(component), renderWorkload(component)],
    [types.serviceAccount, renderServiceAccount(component)],
    [types.componentConfigMap, renderConfigMap(component)],
    ...renderClaims(component).map((claim): [ResourceType, KubeObject] => [types.pvc, claim]),
    [types.service, renderService(component)],
    [types.networkPolicy, renderNetworkPolicy(component, siblings)],
    [types.ingress, renderIngress(component)],
  ];
  return children.filter((child): child is [ResourceType, KubeObject] => child[1] !== undefined);
}
