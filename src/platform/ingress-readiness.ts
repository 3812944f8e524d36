/**
 * Whether a Component's Ingress must have an address before the Component is Ready: only where an
 * ingress controller will give it one, i.e. its IngressClass exists (the named one, or without a
 * name the cluster's default class).
 */
import type { V1Ingress, V1IngressClass } from "@kubernetes/client-node";
import type { ComponentResource } from "../apis/platform/component.ts";
import type { Cache } from "../kube/types.ts";
import { types } from "./resource-types.ts";

/** Marks the IngressClass that serves Ingresses without `ingressClassName`. */
export const defaultClassAnnotation = "ingressclass.kubernetes.io/is-default-class";

/** Pure: with `className` that class must exist; without one a class annotated as the default must. */
export function ingressClassServes(
  className: string | undefined,
  classes: readonly Pick<V1IngressClass, "metadata">[],
): boolean {
  if (className) return classes.some((c) => c.metadata?.name === className);
  return classes.some((c) => c.metadata?.annotations?.[defaultClassAnnotation] === "true");
}

/** The `ingress` part of a ComponentObservation: set only when an address is to be waited for. */
export function ingressObservation(
  cache: Cache,
  component: ComponentResource,
  hasIngress: boolean,
): { ingress?: { hasAddress: boolean } } {
  if (!hasIngress) return {};
  const classes = cache.list<V1IngressClass>(types.ingressClass);
  if (!ingressClassServes(component.spec.ingress?.className, classes)) return {};
  const ingress = cache.get<V1Ingress>(types.ingress, {
    namespace: component.metadata.namespace,
    name: component.metadata.name ?? "",
  });
  return { ingress: { hasAddress: (ingress?.status?.loadBalancer?.ingress?.length ?? 0) > 0 } };
}
