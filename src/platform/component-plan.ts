/**
 * A Component's reconcile as a plan (pure): from what the cache holds of it and around it
 * (ObservedComponent) to the commands `executePlan` carries out (src/kube/plan.ts). Writing its
 * children and its workload is the area's own I/O (ComponentCommand, carried out by the component
 * controller's effect), because what follows depends on the answer: the objects with their uids (the
 * inventory), an object of a child's name that is someone else's, a change refused as immutable.
 * `afterChildren`, `afterWorkload` and `afterWorkloadRefused` plan what follows from each answer.
 *
 * In order: a deleted Component is torn down (its inventory, minus kept data, then its finalizer);
 * one that is not its Platform's, or whose children's names are taken, is refused; else everything
 * the pods need goes first, together (one level ahead of the gate), then the workload once the gate
 * is open, then what the rendering no longer produces is pruned, a StatefulSet's stuck pods deleted,
 * and the verdict written with the inventory.
 */
import type { V1Deployment, V1Pod, V1StatefulSet } from "@kubernetes/client-node";
import type { ComponentResource } from "../apis/platform/component.ts";
import type { PlatformResource } from "../apis/platform/platform.ts";
import { keyOf } from "../kube/keys.ts";
import type { PlanCommand } from "../kube/plan.ts";
import type { KubeObject, ResourceType } from "../kube/types.ts";
import { annotated, childTypeOf, renderedChildren, workloadTypeOf } from "./component-children.ts";
import { gateBlockers, mayPrepare, type SiblingComponent } from "./component-gate.ts";
import {
  entryKey,
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
  progressDeadlineSeconds,
  renderClaims,
  renderService,
  renderWorkload,
  workloadDrifted,
} from "./component-objects.ts";
import { childAccess, foreignChildrenMessage, notFromPlatform } from "./component-ownership.ts";
import { type ComponentVerdict, componentVerdict, workloadView } from "./component-status.ts";
import { immutableRefusal, recreatedMessage, refusedMessage, resolveImmutable } from "./immutable-fields.ts";
import { keptFor } from "./kept-data.ts";
import { phaseStatus } from "./phase-status.ts";
import { platformReference } from "./platform-owner.ts";
import { types } from "./resource-types.ts";
import { revisionLabel, stuckOldRevisionPods } from "./stuck-pods.ts";

/** A Component not yet Ready or Stopped (or refused): look again. */
export const unsettledRequeueMs = 15_000;
/** While a deleted Component's children go: look again (their deletions usually come first). */
export const teardownPollMs = 1_000;
/** A child that exists but is not cached yet: look again once the watch has delivered it. */
export const cacheLagMs = 500;

export type ComponentStatus = NonNullable<ComponentResource["status"]>;
type Workload = V1Deployment | V1StatefulSet;

/** What a Component's reconcile reads, all of it from the cache. */
export interface ObservedComponent {
  component: ComponentResource;
  /** The Platform its controller reference names, if cached. */
  platform: PlatformResource | undefined;
  /** The other Components of its Platform. */
  siblings: ComponentResource[];
  /** The cached object of each name it renders or its inventory records, by entryKey. */
  cached: ReadonlyMap<string, KubeObject>;
  /** Its children as labelled: where the inventory of a Component recorded before the inventory starts. */
  labelled: readonly (readonly [ResourceType, KubeObject])[];
  /** Its pods (by label). */
  pods: readonly V1Pod[];
  /** How many endpoints of its Service are ready (not known to be unready). */
  readyEndpoints: number;
  /** Set only where an ingress controller will give its Ingress an address (ingress-readiness.ts). */
  ingress?: { hasAddress: boolean };
  now: number;
}

/** A child to write: created when nothing of its name is cached, else applied over its own copy (forced). */
export interface ChildWrite {
  resource: ResourceType;
  object: KubeObject;
  create: boolean;
}

/** A child as applied (or found current), undefined when it exists but is not in the cache yet. */
export type Applied = [ResourceType, KubeObject | undefined];

export type ComponentCommand =
  /** Writes the children at once; `unchanged` are those whose cached copy is current (afterChildren). */
  | { type: "ApplyChildren"; writes: ChildWrite[]; unchanged: Applied[] }
  /** Writes the workload (afterWorkload, or afterWorkloadRefused); `children`: as applied before it. */
  | { type: "ApplyWorkload"; write: ChildWrite; children: Applied[] }
  /** Ends the reconcile as failed: it is retried with the runtime's backoff. */
  | { type: "Fail"; message: string };

export type ComponentPlan = PlanCommand<ComponentStatus, ComponentCommand>[];

export function planComponent(o: ObservedComponent): ComponentPlan {
  const { component } = o;
  if (component.metadata.deletionTimestamp) return teardown(o);
  const refusal = notFromPlatform(component, o.platform) ?? foreignChildren(o);
  if (refusal) return refused(o, refusal);
  // the Platform creates its Components with the finalizer; one an older operator made gets it here
  const finalizer: ComponentPlan = component.metadata.finalizers?.includes(inventoryFinalizer)
    ? []
    : [{ type: "AddFinalizer", finalizer: inventoryFinalizer }];
  return [...finalizer, ...(gateOf(o).prepare ? prepare(o) : afterChildren(o, []))];
}

/** Reports a Component that is not reconciled, and why; nothing of it is applied. */
export function refused(o: ObservedComponent, message: string): ComponentPlan {
  const { component } = o;
  const verdict: ComponentVerdict = {
    phase: "Failed",
    message,
    replicas: 0,
    readyReplicas: 0,
    ...(component.status?.version ? { version: component.status.version } : {}),
  };
  return [
    setStatus(component, verdict, component.status?.inventory, component.status?.rolloutStartedAt),
    { type: "Requeue", afterMs: unsettledRequeueMs },
  ];
}

/**
 * After the children: the workload is applied when the gate is open and it is not current; one being
 * deleted (to be recreated) is left alone until it is gone.
 */
export function afterChildren(o: ObservedComponent, children: Applied[]): ComponentPlan {
  const gate = gateOf(o);
  if (gate.current || gate.waitingFor.length > 0) return finish(o, children, { workload: gate.cached });
  if (gate.cached?.metadata?.deletionTimestamp) {
    const recreating = `recreating ${gate.kind} ${gate.name}: waiting for the old one to be deleted`;
    return finish(o, children, { recreating });
  }
  const write = { resource: gate.type, object: gate.rendered, create: gate.cached === undefined };
  return [{ type: "ApplyWorkload", write, children }];
}

/**
 * After the workload was applied at `appliedAt` (`workload`: as the API server answered; undefined
 * when its create found one of its name already there, whose it is the next reconcile sees): a
 * rollout of it starts then.
 */
export function afterWorkload(
  o: ObservedComponent,
  children: Applied[],
  workload: KubeObject | undefined,
  appliedAt: number,
): ComponentPlan {
  return finish(o, children, { workload: workload as Workload | undefined, appliedAt });
}

/**
 * After the workload's apply failed with `error`: a change refused because a field cannot change is
 * resolved as `resolveImmutable` decides (immutable-fields.ts): the workload is deleted with the
 * decided propagation (an Event `Recreated` names it and the fields first), and a later reconcile
 * creates it anew once it is gone (its deletion is an event of an owned object); or it is not
 * recreated and the Component fails naming the field. Its claims are the Component's own objects and
 * are not touched. Undefined for any other error (or a workload that is not the Component's): the
 * error stands.
 */
export function afterWorkloadRefused(
  o: ObservedComponent,
  children: Applied[],
  error: unknown,
): ComponentPlan | undefined {
  const { component } = o;
  const { type, kind, name, rendered, cached } = gateOf(o);
  const refusal = immutableRefusal(error, kind, cached, rendered);
  if (!refusal || !cached || childAccess(component, cached) !== "update") return undefined;
  const resolution = resolveImmutable(refusal);
  if (resolution.action === "fail") {
    return finish(o, children, { workload: cached, refused: refusedMessage(resolution, name) });
  }
  const claims = renderClaims(component).map((claim) => claim.metadata?.name ?? "");
  const recreated = recreatedMessage(resolution, name, claims);
  return [
    { type: "RecordEvent", event: { type: "Normal", reason: "Recreated", message: recreated } },
    {
      type: "Delete",
      resource: type,
      key: keyOf(rendered),
      propagationPolicy: resolution.propagationPolicy,
      ...(cached.metadata?.uid ? { uid: cached.metadata.uid } : {}),
    },
    ...finish(o, children, {
      recreating: `recreating ${kind} ${name}: ${resolution.fields.join(", ")} cannot change; the old one is deleted (propagationPolicy ${resolution.propagationPolicy}) and a new one is created once it is gone`,
    }),
  ];
}

/** The cached copy was applied from exactly this rendering (most reconciles follow a status change). */
const isCurrent = <T extends KubeObject>(cached: T | undefined, rendered: KubeObject): cached is T =>
  cached !== undefined &&
  cached.metadata?.annotations?.[annotations.appliedHash] ===
    rendered.metadata?.annotations?.[annotations.appliedHash];

const cachedOf = <T extends KubeObject>(o: ObservedComponent, type: ResourceType, object: KubeObject) =>
  o.cached.get(renderedKey(type, object)) as T | undefined;

/** `derive` computed once per observation: the plan and its follow-ups read it several times. */
function perObservation<T>(derive: (o: ObservedComponent) => T): (o: ObservedComponent) => T {
  const derived = new WeakMap<ObservedComponent, T>();
  return (o) => {
    if (!derived.has(o)) derived.set(o, derive(o));
    return derived.get(o) as T;
  };
}

/** Every child the Component renders (component-children.ts), its workload among them. */
const renderedOf = perObservation((o) => renderedChildren(o.component, o.siblings));

/**
 * The workload and its gate: whether the cached one is current (applied from this rendering, not
 * scaled or re-imaged by hand), what its change waits for (component-gate.ts), and whether what the
 * pods need is prepared meanwhile (one level ahead).
 */
const gateOf = perObservation((o) => {
  const { component } = o;
  const type = workloadTypeOf(component);
  const rendered = annotated(renderWorkload(component));
  const cached = cachedOf<Workload>(o, type, rendered);
  const current = isCurrent(cached, rendered) && !workloadDrifted(cached, rendered);
  const siblings = current ? [] : o.siblings.map(asSibling);
  const waitingFor = current ? [] : gateBlockers(component.spec, siblings);
  return {
    type,
    kind: rendered.kind ?? type.kind,
    name: rendered.metadata?.name ?? "",
    rendered,
    cached,
    current,
    waitingFor,
    prepare: waitingFor.length === 0 || mayPrepare(component.spec, siblings),
  };
});

/**
 * Everything the pods need or are reached through goes first, together: a pod naming a
 * ServiceAccount that does not exist yet is refused; a pod created before its claim is found
 * unschedulable and waits out the scheduler's backoff; a Service created with its pods risks the
 * EndpointSlice controller's one-second resync. A child whose cached copy is current is not sent.
 */
function prepare(o: ObservedComponent): ComponentPlan {
  const workloadType = workloadTypeOf(o.component);
  const rendered = renderedOf(o).filter(([type]) => type !== workloadType);
  const writes: ChildWrite[] = [];
  const unchanged: Applied[] = [];
  for (const [resource, child] of rendered) {
    const object = annotated(child);
    const cached = cachedOf(o, resource, object);
    if (isCurrent(cached, object)) unchanged.push([resource, cached]);
    else writes.push({ resource, object, create: cached === undefined });
  }
  return writes.length > 0 ? [{ type: "ApplyChildren", writes, unchanged }] : afterChildren(o, unchanged);
}

interface WorkloadOutcome {
  /** The workload as applied, or as cached when nothing was applied; none while it is recreated. */
  workload?: Workload | undefined;
  /** The workload is being deleted to be created anew: what the Component's message says meanwhile. */
  recreating?: string;
  /** The API server refuses the workload's change and it is not recreated (the Component's message). */
  refused?: string;
  /** When the workload was applied: a rollout of it starts then. */
  appliedAt?: number;
}

/**
 * What follows the writes: what the rendering no longer produces goes once the workload runs this
 * rendering (the gate is open), so an old workload waiting for its dependencies keeps what it reads;
 * a StatefulSet's stuck pods go; the verdict is written with the inventory; and the reconcile comes
 * back soon when a child is not cached yet, later while the Component has not settled.
 */
function finish(o: ObservedComponent, children: Applied[], outcome: WorkloadOutcome): ComponentPlan {
  const { component } = o;
  const { type, waitingFor } = gateOf(o);
  const { workload } = outcome;
  const rolloutStartedAt =
    outcome.appliedAt === undefined
      ? component.status?.rolloutStartedAt
      : new Date(outcome.appliedAt).toISOString();
  const verdicts = waitingFor.length === 0 && !outcome.refused ? pruneVerdicts(o, false) : [];
  const inventory = nextInventory(
    recordedInventory(o),
    currentEntries(component, [...children, [type, workload]]),
    verdicts,
  );
  const stuck =
    component.spec.workload === "StatefulSet" && workload && waitingFor.length === 0
      ? stuckPodCommands(workload as V1StatefulSet, o.pods)
      : [];
  const commands = [...pruneCommands(o, verdicts, "Background"), ...stuck];
  const verdict = verdictOf(o, workload, waitingFor, outcome, rolloutStartedAt);
  if (outcome.refused) {
    // not recreated again: Failed naming the field, and retried with the runtime's backoff
    const failed = { ...verdict, phase: "Failed" as const, message: outcome.refused };
    return [
      ...commands,
      setStatus(component, failed, inventory, rolloutStartedAt),
      { type: "Fail", message: outcome.refused },
    ];
  }
  const final = verdict.phase === "Ready" || verdict.phase === "Stopped";
  const unseen = children.some(([, object]) => object === undefined);
  const awaitCache = unseen || (workload === undefined && waitingFor.length === 0);
  const requeue = awaitCache ? cacheLagMs : final ? undefined : unsettledRequeueMs;
  return [
    ...commands,
    setStatus(component, verdict, inventory, rolloutStartedAt),
    ...(requeue ? [{ type: "Requeue" as const, afterMs: requeue }] : []),
  ];
}

function verdictOf(
  o: ObservedComponent,
  workload: Workload | undefined,
  waitingFor: string[],
  outcome: WorkloadOutcome,
  rolloutStartedAt: string | undefined,
): ComponentVerdict {
  const { component } = o;
  const templateHash = workload?.spec?.template.metadata?.annotations?.[annotations.templateHash];
  return componentVerdict({
    generation: component.metadata.generation ?? 0,
    stopped: component.spec.stopped,
    replicas: component.spec.replicas,
    version: component.spec.version,
    previous: { phase: component.status?.phase, version: component.status?.version },
    ...(workload ? { workload: workloadView(workload) } : {}),
    pods: o.pods,
    ...(templateHash ? { templateHash } : {}),
    hasService: renderService(component) !== undefined,
    readyEndpoints: o.readyEndpoints,
    ...(o.ingress ? { ingress: o.ingress } : {}),
    waitingFor,
    ...(outcome.recreating ? { recreating: outcome.recreating } : {}),
    ...(component.spec.workload === "StatefulSet"
      ? {
          statefulSetProgress: {
            deadlineSeconds: progressDeadlineSeconds(component),
            ...(rolloutStartedAt ? { rolloutStartedAt } : {}),
            now: outcome.appliedAt ?? o.now,
          },
        }
      : {}),
  });
}

/**
 * A deleted Component: its inventory (minus kept data) is deleted, and once all of it is gone its
 * finalizer goes. What it owns goes in the foreground (a workload after its pods), so the Platform's
 * reverse-order teardown still waits for a dependent's pods before deleting its dependencies.
 */
function teardown(o: ObservedComponent): ComponentPlan {
  if (!o.component.metadata.finalizers?.includes(inventoryFinalizer)) return [];
  const verdicts = pruneVerdicts(o, true);
  if (verdicts.some((verdict) => verdict.action === "prune")) {
    // the children's deletions reconcile it again (they are owned); this is the fallback
    return [...pruneCommands(o, verdicts, "Foreground"), { type: "Requeue", afterMs: teardownPollMs }];
  }
  return [{ type: "RemoveFinalizer", finalizer: inventoryFinalizer }];
}

/** What becomes of the recorded entries the rendering no longer produces (every one when `removing`). */
function pruneVerdicts(o: ObservedComponent, removing: boolean): InventoryVerdict[] {
  const { component } = o;
  const rendered = removing ? [] : renderedOf(o).map(([type, object]) => renderedKey(type, object));
  return pruneDecisions({
    componentUid: component.metadata.uid ?? "",
    platform: platformReference(component)?.name ?? "",
    inventory: recordedInventory(o),
    rendered: new Set(rendered),
    removing,
    live: (entry) => o.cached.get(entryKey(entry)),
  });
}

/**
 * Deletes what the verdicts prune, each with its uid as precondition (only the very object the
 * Component applied: a 409 means another object of that name took its place, which is left alone).
 * One already being deleted is not asked again.
 */
function pruneCommands(
  o: ObservedComponent,
  verdicts: readonly InventoryVerdict[],
  propagationPolicy: "Background" | "Foreground",
): ComponentPlan {
  return verdicts.flatMap((verdict): ComponentPlan => {
    const resource = childTypeOf(verdict.entry);
    if (verdict.action !== "prune" || !resource) return [];
    if (o.cached.get(entryKey(verdict.entry))?.metadata?.deletionTimestamp) return [];
    const { namespace, name, uid } = verdict.entry;
    return [
      { type: "Delete", resource, key: { namespace, name }, uid, propagationPolicy, tolerateConflict: true },
    ];
  });
}

/** The recorded inventory; a Component recorded by an operator before the inventory: the children it controls. */
function recordedInventory(o: ObservedComponent): InventoryEntry[] {
  if (o.component.status?.inventory) return o.component.status.inventory;
  return currentEntries(o.component, o.labelled);
}

/** The inventory entries of the children the Component controls (those with a uid). */
const currentEntries = (
  component: ComponentResource,
  children: readonly (readonly [ResourceType, KubeObject | undefined])[],
): InventoryEntry[] =>
  children.flatMap(([type, object]) => {
    const entry =
      object && childAccess(component, object) === "update" ? inventoryEntry(type, object) : undefined;
    return entry ? [entry] : [];
  });

/** Deletes the pods the StatefulSet would wait on forever (stuck-pods.ts), each with an Event. */
function stuckPodCommands(statefulSet: V1StatefulSet, pods: readonly V1Pod[]): ComponentPlan {
  return stuckOldRevisionPods(statefulSet, pods).flatMap((pod): ComponentPlan => {
    const name = pod.metadata?.name ?? "";
    const message = `deleted pod ${name}: it is not Ready and runs revision ${pod.metadata?.labels?.[revisionLabel]}, not ${statefulSet.status?.updateRevision}, which a StatefulSet does not replace on its own`;
    return [
      {
        type: "Delete",
        resource: types.pod,
        key: keyOf(pod),
        ...(pod.metadata?.uid ? { uid: pod.metadata.uid } : {}),
        // another uid: the pod was replaced meanwhile
        tolerateConflict: true,
      },
      { type: "RecordEvent", event: { type: "Normal", reason: "DeletedStuckPod", message } },
    ];
  });
}

/** Why the Component may not be applied: objects of its children's names that belong to something else. */
function foreignChildren(o: ObservedComponent): string | undefined {
  const { component } = o;
  const foreign = renderedOf(o).flatMap(([type, object]) => {
    const live = cachedOf(o, type, object);
    if (!live || childAccess(component, live) !== "foreign") return [];
    return type === types.pvc && keptFor(live, platformReference(component)?.name ?? "") ? [] : [live];
  });
  return foreign.length > 0 ? foreignChildrenMessage(foreign) : undefined;
}

const asSibling = (component: ComponentResource): SiblingComponent => ({
  spec: component.spec,
  generation: component.metadata.generation ?? 0,
  deleting: Boolean(component.metadata.deletionTimestamp),
  status: component.status ?? {},
});

/** The verdict and the inventory as the Component's status, with an Event when the phase changed. */
function setStatus(
  component: ComponentResource,
  verdict: ComponentVerdict,
  inventory: InventoryEntry[] | undefined,
  rolloutStartedAt: string | undefined,
): ComponentPlan[number] {
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
  const events = event && verdict.phase !== "Pending" ? [event] : undefined;
  return { type: "SetStatus", status, ...(events ? { events } : {}) };
}
