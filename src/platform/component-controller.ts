/**
 * The Component controller: applies a Component's workload, Service, Ingress, PVCs and ServiceAccount
 * (all owned by it), recreating a workload whose change the API server refuses as immutable
 * (immutable-fields.ts), records what it applied in the Component's inventory and prunes what the
 * rendering no longer produces (component-inventory.ts) — all of it, minus kept data, before a
 * deleted Component's finalizer goes — and reports its phase from what Kubernetes says about them.
 */
import type { V1Deployment, V1EndpointSlice, V1Pod, V1StatefulSet } from "@kubernetes/client-node";
import type { ComponentResource } from "../apis/platform/component.ts";
import { keyOf } from "../kube/keys.ts";
import { controllerOf } from "../kube/owners.ts";
import { isConflict, isNotFound } from "../kube/rest.ts";
import { StatusWriter, soonerRequeue } from "../kube/status-writer.ts";
import type {
  Cache,
  ControllerSpec,
  KubeObject,
  ObjectKey,
  Permission,
  ReconcileContext,
  ResourceType,
} from "../kube/types.ts";
import {
  annotated,
  childTypeOf,
  childTypes,
  renderedChildren,
  workloadTypeOf,
} from "./component-children.ts";
import { gateBlockers, mayPrepare, type SiblingComponent } from "./component-gate.ts";
import {
  type InventoryEntry,
  type InventoryVerdict,
  inventoryEntry,
  inventoryFinalizer,
  nextInventory,
  pruneDecisions,
  renderedKey,
} from "./component-inventory.ts";
import {
  annotations,
  labels,
  progressDeadlineSeconds,
  renderClaims,
  renderConfigMap,
  renderIngress,
  renderService,
  renderServiceAccount,
  renderWorkload,
  workloadDrifted,
} from "./component-objects.ts";
import { childAccess, foreignChildrenMessage, notFromPlatform } from "./component-ownership.ts";
import { type ComponentVerdict, componentVerdict, workloadView } from "./component-status.ts";
import { immutableRefusal, recreatedMessage, refusedMessage, resolveImmutable } from "./immutable-fields.ts";
import { ingressObservation } from "./ingress-readiness.ts";
import { keptFor } from "./kept-data.ts";
import { renderNetworkPolicy } from "./network-policies.ts";
import { phaseStatus } from "./phase-status.ts";
import { platformReference, referencedPlatform } from "./platform-owner.ts";
import { types } from "./resource-types.ts";
import { revisionLabel, stuckOldRevisionPods } from "./stuck-pods.ts";

const unsettledRequeueMs = 15_000;
/** While a deleted Component's children go: look again (their deletions usually come first). */
const teardownPollMs = 1_000;
/** A child that exists but is not cached yet: look again once the watch has delivered it. */
const cacheLagMs = 500;

type ComponentStatus = NonNullable<ComponentResource["status"]>;
type Writer = StatusWriter<ComponentStatus>;

async function reconcileComponent(writer: Writer, key: ObjectKey, context: ReconcileContext) {
  const { cache } = context;
  const component = cache.get<ComponentResource>(types.component, key);
  if (!component) return undefined;
  if (component.metadata.deletionTimestamp) return teardown(context, component);
  const refusal =
    notFromPlatform(component, referencedPlatform(cache, component)) ?? foreignChildren(cache, component);
  if (refusal) return refuse(writer, context, component, refusal);
  // the Platform creates its Components with the finalizer; one an older operator made gets it here
  await context.client.addFinalizer(types.component, key, inventoryFinalizer);
  const namespace = key.namespace ?? "";
  const name = key.name;

  // Everything the pods need or are reached through goes first, together: a pod naming a
  // ServiceAccount that does not exist yet is refused; a pod created before its claim is found
  // unschedulable and waits out the scheduler's backoff; a Service created with its pods risks the
  // EndpointSlice controller's one-second resync. A Component waiting for its dependencies prepares
  // these one level ahead (component-gate.ts); its workload changes once the gate opens.
  const workloadType = workloadTypeOf(component);
  const rendered = annotated(renderWorkload(component));
  const cached = cache.get<V1Deployment | V1StatefulSet>(workloadType, key);
  const current = isCurrent(cached, rendered) && !workloadDrifted(cached, rendered);
  const siblings = current ? [] : siblingsOf(cache, component).map(asSibling);
  const waitingFor = current ? [] : gateBlockers(component.spec, siblings);
  const service = renderService(component);
  const ingress = renderIngress(component);
  let applied: Applied[] = [];
  if (waitingFor.length === 0 || mayPrepare(component.spec, siblings)) {
    const prepared = await prepare(context, component).catch(asForeignChild);
    if (prepared instanceof ForeignChildError) return refuse(writer, context, component, prepared.message);
    applied = prepared;
  }
  const unseen = applied.some(([, object]) => object === undefined);
  const outcome =
    current || waitingFor.length > 0
      ? { workload: cached }
      : await applyWorkload(context, component, workloadType, rendered, cached);
  const workload = outcome.workload;
  const rolloutStartedAt = outcome.applied ? new Date().toISOString() : component.status?.rolloutStartedAt;
  // what the rendering no longer produces goes once the workload runs this rendering (the gate is
  // open), so an old workload waiting for its dependencies keeps what it reads
  const inventory = await reconcileInventory(
    context,
    component,
    [...applied, [workloadType, workload]],
    waitingFor.length === 0 && !outcome.refused,
  );

  const pods = cache.list<V1Pod>(types.pod, { namespace, labels: { [labels.component]: name } });
  if (component.spec.workload === "StatefulSet" && workload && waitingFor.length === 0)
    await deleteStuckPods(context, component, workload as V1StatefulSet, pods);
  const templateHash = workload && templateHashOf(workload);
  const verdict = componentVerdict({
    generation: component.metadata.generation ?? 0,
    stopped: component.spec.stopped,
    replicas: component.spec.replicas,
    version: component.spec.version,
    previous: { phase: component.status?.phase, version: component.status?.version },
    ...(workload ? { workload: workloadView(workload) } : {}),
    pods,
    ...(templateHash ? { templateHash } : {}),
    hasService: service !== undefined,
    readyEndpoints: readyEndpoints(cache, namespace, name),
    ...ingressObservation(cache, component, ingress !== undefined),
    waitingFor,
    ...(outcome.recreating ? { recreating: outcome.recreating } : {}),
    ...(component.spec.workload === "StatefulSet"
      ? {
          statefulSetProgress: {
            deadlineSeconds: progressDeadlineSeconds(component),
            ...(rolloutStartedAt ? { rolloutStartedAt } : {}),
            now: Date.now(),
          },
        }
      : {}),
  });
  if (outcome.refused) {
    // not recreated again: Failed naming the field, and retried with the runtime's backoff
    await writeStatus(
      writer,
      context,
      component,
      { ...verdict, phase: "Failed", message: outcome.refused },
      inventory,
      rolloutStartedAt,
    );
    throw new Error(outcome.refused);
  }
  const { requeueAfterMs } = await writeStatus(
    writer,
    context,
    component,
    verdict,
    inventory,
    rolloutStartedAt,
  );
  const final = verdict.phase === "Ready" || verdict.phase === "Stopped";
  const awaitCache = unseen || (workload === undefined && waitingFor.length === 0);
  const next = soonerRequeue(
    requeueAfterMs,
    awaitCache ? cacheLagMs : final ? undefined : unsettledRequeueMs,
  );
  return next ? { requeueAfterMs: next } : undefined;
}

/** A child as applied (or found current), undefined when it exists but is not in the cache yet. */
type Applied = [ResourceType, KubeObject | undefined];

/** Applies the ServiceAccount, ConfigMap, claims, Service, NetworkPolicy and Ingress the Component renders. */
async function prepare(context: ReconcileContext, component: ComponentResource): Promise<Applied[]> {
  const serviceAccount = renderServiceAccount(component);
  const service = renderService(component);
  const ingress = renderIngress(component);
  const configMap = renderConfigMap(component);
  const rendered: [ResourceType, KubeObject | undefined][] = [
    [types.serviceAccount, serviceAccount],
    [types.componentConfigMap, configMap],
    ...renderClaims(component).map((claim): [ResourceType, KubeObject] => [types.pvc, claim]),
    [types.service, service],
    [types.networkPolicy, networkPolicyOf(context.cache, component)],
    [types.ingress, ingress],
  ];
  return Promise.all(
    rendered
      .filter((child): child is [ResourceType, KubeObject] => child[1] !== undefined)
      .map(async ([type, object]): Promise<Applied> => [type, await applyChanged(context, type, object)]),
  );
}

/**
 * The Component's inventory after this reconcile: the children it has now (`applied`, with their
 * uids), and — when `prune` — the recorded entries the rendering no longer produces deleted as
 * pruneDecisions says (a claim's data stays until the Component goes). A Component recorded by an
 * operator before the inventory starts from the children it controls.
 */
async function reconcileInventory(
  context: ReconcileContext,
  component: ComponentResource,
  applied: [ResourceType, KubeObject | undefined][],
  prune: boolean,
): Promise<InventoryEntry[]> {
  const recorded = recordedInventory(context.cache, component);

  const current = applied.flatMap(([type, object]) => {
    const entry =
      object && childAccess(component, object) === "update" ? inventoryEntry(type, object) : undefined;
    return entry ? [entry] : [];
  });
  const verdicts = prune
    ? pruneDecisions({
        componentUid: component.metadata.uid ?? "",
        platform: platformReference(component)?.name ?? "",
        inventory: recorded,
        rendered: new Set(
          renderedChildren(component, siblingsOf(context.cache, component)).map(([type, object]) =>
            renderedKey(type, object),
          ),
        ),
        removing: false,
        live: (entry) => liveOf(context.cache, entry),
      })
    : [];
  await deletePruned(context, verdicts, "Background");
  return nextInventory(recorded, current, verdicts);
}

/**
 * A deleted Component: its inventory (minus kept data) is deleted, and once all of it is gone its
 * finalizer goes. What it owns goes in the foreground (a workload after its pods), so the Platform's
 * reverse-order teardown still waits for a dependent's pods before deleting its dependencies.
 */
async function teardown(context: ReconcileContext, component: ComponentResource) {
  if (!component.metadata.finalizers?.includes(inventoryFinalizer)) return undefined;
  const verdicts = pruneDecisions({
    componentUid: component.metadata.uid ?? "",
    platform: platformReference(component)?.name ?? "",
    inventory: recordedInventory(context.cache, component),
    rendered: new Set(),
    removing: true,
    live: (entry) => liveOf(context.cache, entry),
  });
  if (verdicts.some((verdict) => verdict.action === "prune")) {
    await deletePruned(context, verdicts, "Foreground");
    // the children's deletions reconcile it again (they are owned); this is the fallback
    return { requeueAfterMs: teardownPollMs };
  }
  await context.client.removeFinalizer(types.component, keyOf(component), inventoryFinalizer);
  return undefined;
}

/**
 * The recorded inventory; for a Component an operator made before the inventory (no status.inventory),
 * the children of its kinds it controls.
 */
function recordedInventory(cache: Pick<Cache, "list">, component: ComponentResource): InventoryEntry[] {
  if (component.status?.inventory) return component.status.inventory;
  return childTypes.flatMap((type) =>
    cache
      .list(type, {
        namespace: component.metadata.namespace,
        labels: { [labels.component]: component.metadata.name ?? "" },
      })
      .filter((child) => childAccess(component, child) === "update")
      .flatMap((child) => {
        const entry = inventoryEntry(type, child);
        return entry ? [entry] : [];
      }),
  );
}

const liveOf = (cache: Pick<Cache, "get">, entry: InventoryEntry): KubeObject | undefined => {
  const type = childTypeOf(entry);
  return type ? cache.get(type, { namespace: entry.namespace, name: entry.name }) : undefined;
};

/**
 * Deletes what the verdicts prune, each with its uid as precondition (only the very object the
 * Component applied: a 409 means another object of that name took its place, which is left alone).
 * One already being deleted is not asked again.
 */
async function deletePruned(
  context: ReconcileContext,
  verdicts: readonly InventoryVerdict[],
  propagationPolicy: "Background" | "Foreground",
) {
  await Promise.all(
    verdicts.map(async (verdict) => {
      const type = childTypeOf(verdict.entry);
      if (verdict.action !== "prune" || !type) return;
      const key = { namespace: verdict.entry.namespace, name: verdict.entry.name };
      if (context.cache.get(type, key)?.metadata?.deletionTimestamp) return;
      await context.client
        .delete(type, key, { propagationPolicy, uid: verdict.entry.uid })
        .catch((error: unknown) => {
          if (!isConflict(error) && !isNotFound(error)) throw error;
        });
    }),
  );
}

/** The Component's NetworkPolicy: admitting the siblings that depend on it (a sibling's change reconciles it). */
const networkPolicyOf = (cache: Pick<Cache, "list">, component: ComponentResource) =>
  renderNetworkPolicy(component, siblingsOf(cache, component));

/** Why the Component may not be applied: objects of its children's names that belong to something else. */
function foreignChildren(
  cache: Pick<Cache, "get" | "list">,
  component: ComponentResource,
): string | undefined {
  const foreign = renderedChildren(component, siblingsOf(cache, component))
    .filter(([type, object]) => {
      const live = cache.get(type, keyOf(object));
      if (!live || childAccess(component, live) !== "foreign") return false;
      return !(type === types.pvc && keptFor(live, platformReference(component)?.name ?? ""));
    })
    .map(([type, object]) => cache.get(type, keyOf(object)) as KubeObject);
  return foreign.length > 0 ? foreignChildrenMessage(foreign) : undefined;
}

/** Reports a Component that is not reconciled, and why; nothing of it is applied. */
async function refuse(
  writer: Writer,
  context: ReconcileContext,
  component: ComponentResource,
  message: string,
) {
  const verdict: ComponentVerdict = {
    phase: "Failed",
    message,
    replicas: 0,
    readyReplicas: 0,
    ...(component.status?.version ? { version: component.status.version } : {}),
  };
  const inventory = component.status?.inventory;
  const { requeueAfterMs } = await writeStatus(writer, context, component, verdict, inventory);
  return { requeueAfterMs: soonerRequeue(requeueAfterMs, unsettledRequeueMs) ?? unsettledRequeueMs };
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

/** The cached copy was applied from exactly this rendering (most reconciles follow a status change). */
const isCurrent = <T extends KubeObject>(cached: T | undefined, rendered: KubeObject): cached is T =>
  cached !== undefined &&
  cached.metadata?.annotations?.[annotations.appliedHash] ===
    rendered.metadata?.annotations?.[annotations.appliedHash];

/** Applies `object` unless the cached copy is current; undefined when it exists but is not cached yet. */
function applyChanged<T extends KubeObject>(
  context: ReconcileContext,
  type: ResourceType,
  object: T,
): Promise<T | undefined> {
  const rendered = annotated(object);
  const cached = context.cache.get<T>(type, keyOf(rendered));
  return isCurrent(cached, rendered) ? Promise.resolve(cached) : applyOwned(context, type, rendered);
}

/**
 * Creates the child if nothing of its name is cached, else applies it over the Component's own copy
 * (forced: undoing a hand edit of what it controls). An object created meanwhile by someone else
 * makes the create fail: undefined, and the next reconcile sees whose it is.
 */
async function applyOwned<T extends KubeObject>(
  context: ReconcileContext,
  type: ResourceType,
  rendered: T,
): Promise<T | undefined> {
  const live = context.cache.get<T>(type, keyOf(rendered));
  if (live) return context.client.apply(rendered, { force: true });
  try {
    return await context.client.create(rendered);
  } catch (error) {
    if (!isConflict(error)) throw error;
    return type.labelSelector ? applyUncached(context, type, rendered) : undefined;
  }
}

type Workload = V1Deployment | V1StatefulSet;

interface WorkloadOutcome {
  /** The workload as applied, or as cached when nothing was applied; none while it is recreated. */
  workload?: Workload | undefined;
  /** The workload is being deleted to be created anew: what the Component's message says meanwhile. */
  recreating?: string;
  /** The API server refuses the workload's change and it is not recreated (the Component's message). */
  refused?: string;
  /** The workload was applied: a rollout of it starts now. */
  applied?: boolean;
}

/**
 * Applies the workload; one refused because a field cannot change is resolved as
 * `resolveImmutable` decides (immutable-fields.ts): deleted with the decided propagation (a
 * `Recreated` Event names it and the fields), then created anew by a later reconcile once it is gone
 * (its deletion is an event of an owned object). Its claims are the Component's own objects and are
 * not touched. A workload being deleted is left alone until it is gone.
 */
async function applyWorkload(
  context: ReconcileContext,
  component: ComponentResource,
  type: ResourceType,
  rendered: Workload,
  cached: Workload | undefined,
): Promise<WorkloadOutcome> {
  const name = rendered.metadata?.name ?? "";
  const kind = rendered.kind ?? type.kind;
  if (cached?.metadata?.deletionTimestamp) {
    return { recreating: `recreating ${kind} ${name}: waiting for the old one to be deleted` };
  }
  try {
    return { workload: await applyOwned(context, type, rendered), applied: true };
  } catch (error) {
    const refusal = immutableRefusal(error, kind, cached, rendered);
    if (!refusal || !cached || childAccess(component, cached) !== "update") throw error;
    const resolution = resolveImmutable(refusal);
    if (resolution.action === "fail") return { workload: cached, refused: refusedMessage(resolution, name) };
    const claims = renderClaims(component).map((claim) => claim.metadata?.name ?? "");
    context.events.event(component, "Normal", "Recreated", recreatedMessage(resolution, name, claims));
    await context.client.delete(type, keyOf(rendered), {
      propagationPolicy: resolution.propagationPolicy,
      ...(cached.metadata?.uid ? { uid: cached.metadata.uid } : {}),
    });
    return {
      recreating: `recreating ${kind} ${name}: ${resolution.fields.join(", ")} cannot change; the old one is deleted (propagationPolicy ${resolution.propagationPolicy}) and a new one is created once it is gone`,
    };
  }
}

/** Deletes the pods the StatefulSet would wait on forever (stuck-pods.ts), each with an Event. */
async function deleteStuckPods(
  context: ReconcileContext,
  component: ComponentResource,
  statefulSet: V1StatefulSet,
  pods: readonly V1Pod[],
): Promise<void> {
  for (const pod of stuckOldRevisionPods(statefulSet, pods)) {
    const name = pod.metadata?.name ?? "";
    await context.client
      .delete(types.pod, keyOf(pod), pod.metadata?.uid ? { uid: pod.metadata.uid } : {})
      .catch((error) => {
        // another uid: the pod was replaced meanwhile
        if (!isConflict(error)) throw error;
      });
    context.events.event(
      component,
      "Normal",
      "DeletedStuckPod",
      `deleted pod ${name}: it is not Ready and runs revision ${pod.metadata?.labels?.[revisionLabel]}, not ${statefulSet.status?.updateRevision}, which a StatefulSet does not replace on its own`,
    );
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

const asSibling = (component: ComponentResource): SiblingComponent => ({
  spec: component.spec,
  generation: component.metadata.generation ?? 0,
  deleting: Boolean(component.metadata.deletionTimestamp),
  status: component.status ?? {},
});

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

const templateHashOf = (workload: V1Deployment | V1StatefulSet) =>
  workload.spec?.template.metadata?.annotations?.[annotations.templateHash];

/** Writes the verdict and the inventory as the Component's status, with an Event when the phase changed. */
function writeStatus(
  writer: Writer,
  context: ReconcileContext,
  component: ComponentResource,
  verdict: ComponentVerdict,
  inventory: InventoryEntry[] | undefined,
  rolloutStartedAt = component.status?.rolloutStartedAt,
) {
  const { status, event } = phaseStatus(
    component,
    {
      phase: verdict.phase,
      reason: verdict.phase,
      message: verdict.message,
      ready: verdict.phase === "Ready",
      degraded: verdict.phase === "Failed",
    },
    {
      ...(verdict.version ? { version: verdict.version } : {}),
      replicas: verdict.replicas,
      readyReplicas: verdict.readyReplicas,
      ready: `${verdict.readyReplicas}/${verdict.replicas}`,
      ...(inventory ? { inventory } : {}),
      ...(rolloutStartedAt ? { rolloutStartedAt } : {}),
    },
  );
  // Pending (created, or a change queued behind dependencies) is where a Component waits, not
  // something that happened to the service: the Platform's Event and message already say what waits.
  return writer.write(context, component, status, verdict.phase === "Pending" ? undefined : event);
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
