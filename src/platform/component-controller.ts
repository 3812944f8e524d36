/**
 * The Component controller: applies a Component's workload, Service, Ingress, PVCs and ServiceAccount
 * (all owned by it), recreating a workload whose change the API server refuses as immutable
 * (immutable-fields.ts), records what it applied in the Component's inventory and prunes what the
 * rendering no longer produces (component-inventory.ts) — all of it, minus kept data, before a
 * deleted Component's finalizer goes — and reports its phase from what Kubernetes says about them.
 * It observes (the cache), plans (component-plan.ts, pure) and carries the plan out with
 * `executePlan`; writing the children and the workload is its own command (`carryOut`).
 */
import type { V1EndpointSlice, V1Pod } from "@kubernetes/client-node";
import type { ComponentResource } from "../apis/platform/component.ts";
import { keyOf } from "../kube/keys.ts";
import { controllerOf } from "../kube/owners.ts";
import { executePlan } from "../kube/plan.ts";
import { isConflict } from "../kube/rest.ts";
import { StatusWriter } from "../kube/status-writer.ts";
import type {
  Cache,
  ControllerSpec,
  KubeObject,
  ObjectKey,
  Permission,
  ReconcileContext,
  ResourceType,
} from "../kube/types.ts";
import { childTypeOf, childTypes, renderedChildren } from "./component-children.ts";
import { renderedKey } from "./component-inventory.ts";
import { labels, renderIngress } from "./component-objects.ts";
import { foreignChildrenMessage } from "./component-ownership.ts";
import {
  type Applied,
  afterChildren,
  afterWorkload,
  afterWorkloadRefused,
  type ChildWrite,
  type ComponentCommand,
  type ComponentPlan,
  type ComponentStatus,
  type ObservedComponent,
  planComponent,
  refused,
} from "./component-plan.ts";
import { ingressObservation } from "./ingress-readiness.ts";
import { referencedPlatform } from "./platform-owner.ts";
import { types } from "./resource-types.ts";

type Writer = StatusWriter<ComponentStatus>;

async function reconcileComponent(writer: Writer, key: ObjectKey, context: ReconcileContext) {
  const component = context.cache.get<ComponentResource>(types.component, key);
  if (!component) return undefined;
  const observed = observeComponent(context.cache, component);
  return executePlan(
    planComponent(observed),
    { resource: types.component, object: component, writer, context },
    (command: ComponentCommand) => carryOut(context, observed, command),
  );
}

/** Everything the Component's plan reads, from the cache. */
function observeComponent(cache: Cache, component: ComponentResource): ObservedComponent {
  const namespace = component.metadata.namespace ?? "";
  const name = component.metadata.name ?? "";
  const siblings = siblingsOf(cache, component);
  const cached = new Map<string, KubeObject>();
  const remember = (type: ResourceType, key: ObjectKey) => {
    const object = cache.get(type, key);
    if (object) cached.set(renderedKey(type, object), object);
  };
  for (const [type, object] of renderedChildren(component, siblings)) remember(type, keyOf(object));
  const labelled = component.status?.inventory
    ? []
    : childTypes.flatMap((type) =>
        cache
          .list(type, { namespace, labels: { [labels.component]: name } })
          .map((child) => [type, child] as const),
      );
  for (const [type, child] of labelled) cached.set(renderedKey(type, child), child);
  for (const entry of component.status?.inventory ?? []) {
    const type = childTypeOf(entry);
    if (type) remember(type, { namespace: entry.namespace, name: entry.name });
  }
  return {
    component,
    platform: referencedPlatform(cache, component),
    siblings,
    cached,
    labelled,
    pods: cache.list<V1Pod>(types.pod, { namespace, labels: { [labels.component]: name } }),
    readyEndpoints: readyEndpoints(cache, namespace, name),
    ...ingressObservation(cache, component, renderIngress(component) !== undefined),
    now: Date.now(),
  };
}

/** Carries out the Component's own commands; answers what follows from their result (component-plan.ts). */
async function carryOut(
  context: ReconcileContext,
  observed: ObservedComponent,
  command: ComponentCommand,
): Promise<ComponentPlan> {
  switch (command.type) {
    case "ApplyChildren": {
      const written = await Promise.all(
        command.writes.map(
          async (write): Promise<Applied> => [write.resource, await writeChild(context, write)],
        ),
      ).catch(asForeignChild);
      if (written instanceof ForeignChildError) return refused(observed, written.message);
      return afterChildren(observed, [...command.unchanged, ...written]);
    }
    case "ApplyWorkload": {
      let workload: KubeObject | undefined;
      try {
        workload = await writeChild(context, command.write);
      } catch (error) {
        const next = afterWorkloadRefused(observed, command.children, error);
        if (!next) throw error;
        return next;
      }
      return afterWorkload(observed, command.children, workload, Date.now());
    }
    case "Fail":
      throw new Error(command.message);
  }
}

/**
 * Creates the child if nothing of its name was cached, else applies it over the Component's own copy
 * (forced: undoing a hand edit of what it controls). An object created meanwhile by someone else
 * makes the create fail: undefined, and the next reconcile sees whose it is.
 */
async function writeChild(context: ReconcileContext, write: ChildWrite): Promise<KubeObject | undefined> {
  const { resource, object } = write;
  if (!write.create) return context.client.apply(object, { force: true });
  try {
    return await context.client.create(object);
  } catch (error) {
    if (!isConflict(error)) throw error;
    return resource.labelSelector ? applyUncached(context, resource, object) : undefined;
  }
}

/** A child's name is taken by an object the Component does not control. */
class ForeignChildError extends Error {
  constructor(object: KubeObject) {
    super(foreignChildrenMessage([object]));
  }
}

const asForeignChild = (error: unknown): ForeignChildError => {
  if (error instanceof ForeignChildError) return error;
  throw error;
};

/**
 * After a create refused as AlreadyExists, for a child whose cache holds only labelled objects: an
 * object of its name without the label is never cached, so whose it is is read live. Another's is
 * refused (ForeignChildError); the Component's own, its label removed by hand, is applied again.
 */
async function applyUncached<T extends KubeObject>(
  context: ReconcileContext,
  type: ResourceType,
  rendered: T,
): Promise<T | undefined> {
  const live = await context.client.get<T>(type, keyOf(rendered));
  if (!live) return undefined;
  if (controllerOf(live)?.uid !== controllerOf(rendered)?.uid) throw new ForeignChildError(live);
  return context.client.apply(rendered, { force: true });
}

/** How many endpoints of the Service `name` are ready (not known to be unready). */
function readyEndpoints(cache: ReconcileContext["cache"], namespace: string, name: string): number {
  const slices = cache.list<V1EndpointSlice>(types.endpointSlice, {
    namespace,
    labels: { "kubernetes.io/service-name": name },
  });
  return slices
    .flatMap((slice) => slice.endpoints ?? [])
    .filter((endpoint) => endpoint.conditions?.ready !== false).length;
}

/** The other Components of `component`'s Platform. */
function siblingsOf(cache: Pick<Cache, "list">, component: ComponentResource): ComponentResource[] {
  const platform = component.metadata?.labels?.[labels.platform];
  if (!platform || !component.spec) return [];
  return cache
    .list<ComponentResource>(types.component, {
      namespace: component.metadata.namespace,
      labels: { [labels.platform]: platform },
    })
    .filter((sibling) => sibling.metadata.name !== component.metadata.name);
}

/**
 * The Components whose gate a change of `changed` may open: those that depend on it (they wait for
 * it to be Ready) and those it depends on (they wait for it to stop).
 */
export function componentsGatedBy(changed: KubeObject, cache: Pick<Cache, "list">): ObjectKey[] {
  const component = changed as ComponentResource;
  return siblingsOf(cache, component)
    .filter(
      (sibling) =>
        sibling.spec.dependencies.includes(component.spec.component) ||
        component.spec.dependencies.includes(sibling.spec.component),
    )
    .map((sibling) => ({ namespace: sibling.metadata.namespace, name: sibling.metadata.name ?? "" }));
}

/** Pods and EndpointSlices are not owned by the Component; they carry its name in a label. */
const byLabel =
  (label: string) =>
  (object: KubeObject): ObjectKey[] => {
    const name = object.metadata?.labels?.[label];
    return name ? [{ namespace: object.metadata?.namespace, name }] : [];
  };

/** The Components an IngressClass's change concerns: every one with an Ingress. */
export function componentsWithIngress(_ingressClass: KubeObject, cache: Pick<Cache, "list">): ObjectKey[] {
  return cache
    .list<ComponentResource>(types.component)
    .filter((component) => component.spec.ingress !== undefined)
    .map((component) => ({ namespace: component.metadata.namespace, name: component.metadata.name ?? "" }));
}

export function componentController(): ControllerSpec {
  // A status write reports these at once; the message alone is refreshed at most once a second.
  const writer: Writer = new StatusWriter({
    pacing: {
      intervalMs: 1_000,
      headline: [
        "phase",
        "version",
        "observedGeneration",
        "replicas",
        "readyReplicas",
        "inventory",
        "rolloutStartedAt",
      ],
    },
  });
  return {
    name: "component",
    for: types.component,
    owns: [...childTypes],
    watches: [
      { type: types.pod, map: byLabel(labels.component) },
      { type: types.endpointSlice, map: byLabel("kubernetes.io/service-name") },
      // a class added, removed or made the default changes whether Ingresses wait for an address
      { type: types.ingressClass, map: componentsWithIngress },
      { type: types.component, map: componentsGatedBy },
    ],
    // the controlling Platform, checked before anything is rendered
    reads: [types.platform],
    reconcile: (key, context) => reconcileComponent(writer, key, context),
    permissions: [
      { type: types.component, verbs: ["patch"], subresource: "status" },
      // its finalizer (component-inventory.ts)
      { type: types.component, verbs: ["patch"] },
      // children are applied (create when missing, patch) and deleted when the inventory prunes them
      // or a workload is recreated because a field it changes is immutable
      ...childTypes.map((type): Permission => ({ type, verbs: ["create", "patch", "delete"] })),
      // a StatefulSet's pod of an old revision that is not Ready (stuck-pods.ts)
      { type: types.pod, verbs: ["delete"] },
    ],
  };
}
