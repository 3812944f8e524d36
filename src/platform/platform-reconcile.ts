/**
 * A Platform's reconcile as a plan (pure): from the Platform and its Components as cached to the
 * commands `executePlan` carries out (src/kube/plan.ts): its finalizer, the release to render (or
 * why none), its credential Secrets and Provider (the area's own command, `EnsureResources`:
 * platform-resources.ts reads what exists live; `afterResources` plans what follows), its Components
 * applied wave by wave and deleted as planPlatform decides (platform-plan.ts), a rollback recorded,
 * and its status with the Event of its phase.
 */
import type { ComponentResource } from "../apis/platform/component.ts";
import type { PlatformResource } from "../apis/platform/platform.ts";
import { type ConditionInput, removeCondition, setCondition } from "../kube/conditions.ts";
import type { PlanCommand } from "../kube/plan.ts";
import type { StatusEvent } from "../kube/status-writer.ts";
import { findRelease, ownVersion, type Release } from "./catalog.ts";
import { phaseStatus } from "./phase-status.ts";
import { type ObservedComponent, type PlatformPlan, planPlatform } from "./platform-plan.ts";
import { componentObject, type RenderOptions, renderComponents } from "./render.ts";
import { types } from "./resource-types.ts";
import {
  activeRollback,
  gatedMessage,
  pendingGates,
  type RollbackRecord,
  rollbackDecision,
  rollbackMessage,
} from "./update-policy.ts";

/** Held while Components are torn down in reverse dependency order. */
export const teardownFinalizer = "platform.slipway.dev/ordered-teardown";

/** How soon a Platform failed on a credential Secret that is not its own looks at it again. */
export const credentialRecheckMs = 30_000;
/** After recording a rollback: once the cache has the write, the old release is rendered. */
export const rollbackRenderMs = 500;
/** While a deleted Platform's Components go. */
export const teardownPollMs = 5_000;

export type PlatformStatus = NonNullable<PlatformResource["status"]>;

/** What a Platform's reconcile reads (the cache) and knows (its releases, how it renders). */
export interface ObservedPlatform {
  platform: PlatformResource;
  /** Its Components, as the plan reads them. */
  components: readonly ObservedComponent[];
  /** The releases this operator knows. */
  releases: readonly Release[];
  render: RenderOptions;
  /** The name of its pipelines Provider (platform-resources.ts). */
  provider: string;
}

export type PlatformCommand =
  /** Its credential Secrets, Provider and builds override exist (platform-resources.ts): afterResources. */
  | { type: "EnsureResources" }
  /** Applies one wave of Components, all at once. */
  | { type: "ApplyComponents"; components: ComponentResource[] };

export type PlatformReconcilePlan = PlanCommand<PlatformStatus, PlatformCommand>[];

export function planPlatformReconcile(o: ObservedPlatform): PlatformReconcilePlan {
  const { platform } = o;
  const deleting = Boolean(platform.metadata.deletionTimestamp);
  const held = platform.metadata.finalizers?.includes(teardownFinalizer) ?? false;
  if (deleting && !held) return [];
  const finalizer: PlatformReconcilePlan = held
    ? []
    : [{ type: "AddFinalizer", finalizer: teardownFinalizer }];
  if (deleting) return componentsPlan(o);
  const { specVersion, specRelease } = specReleaseOf(o);
  if (!specRelease) {
    const known = o.releases.map((r) => r.version).join(", ");
    return [
      ...finalizer,
      setStatus(platform, {
        phase: "Failed",
        message: `spec.version ${specVersion} is not a release this operator knows (known: ${known})`,
        reason: "UnknownVersion",
      }),
    ];
  }
  const target = chooseRelease(o.releases, platform, specRelease);
  if ("waiting" in target) {
    // gated with no release of what runs to render: nothing is applied until acknowledged
    return [
      ...finalizer,
      setStatus(platform, {
        phase: platform.status?.phase ?? "Updating",
        message: target.waiting,
        reason: "AwaitingAcknowledgement",
        gated: target.waiting,
      }),
    ];
  }
  // the Secrets exist before any workload naming them; the Provider comes with the platform
  return [...finalizer, { type: "EnsureResources" }];
}

/**
 * After its resources were ensured: `refused` says why a credential Secret of its name is not used
 * (it is not the platform's): nothing runs on it, and as Secrets are not watched it is looked at again.
 */
export function afterResources(o: ObservedPlatform, refused: string | undefined): PlatformReconcilePlan {
  if (!refused) return componentsPlan(o);
  return [
    setStatus(o.platform, { phase: "Failed", message: refused, reason: "CredentialNotOwned" }),
    { type: "Requeue", afterMs: credentialRecheckMs },
  ];
}

const specReleaseOf = (o: ObservedPlatform) => {
  const specVersion = o.platform.spec.version ?? ownVersion;
  return { specVersion, specRelease: findRelease(specVersion, o.releases) };
};

/**
 * The Components as planPlatform decides (a Platform being deleted renders what it asks for only for
 * its status rows), or a rollback recorded first; then the status, or the finalizer's removal once a
 * deleted Platform's Components are gone.
 */
function componentsPlan(o: ObservedPlatform): PlatformReconcilePlan {
  const { platform } = o;
  const deleting = Boolean(platform.metadata.deletionTimestamp);
  const { specVersion, specRelease } = specReleaseOf(o);
  const target = deleting || !specRelease ? undefined : chooseRelease(o.releases, platform, specRelease);
  const chosen = target && "release" in target ? target : undefined;
  const release = deleting ? specRelease : chosen?.release;
  const { name = "", namespace = "" } = platform.metadata;
  const desired = release ? renderComponents(name, namespace, platform.spec, release, o.render) : [];
  const plan = planPlatform({
    targetVersion: release?.version ?? specVersion,
    stopped: platform.spec.stopped ?? false,
    deleting,
    ...(platform.status?.phase ? { previousPhase: platform.status.phase } : {}),
    ...(platform.status?.version ? { runningVersion: platform.status.version } : {}),
    specChanged: platform.status?.observedGeneration !== platform.metadata.generation,
    desired,
    observed: o.components,
  });
  const rollback =
    chosen?.rollback === undefined && !deleting && plan.phase === "Failed"
      ? rollbackDecision({
          policy: platform.spec.updatePolicy?.onFailure,
          targetVersion: specVersion,
          runningVersion: chosen?.running?.version,
          failures: plan.failures,
        })
      : undefined;
  if (rollback) {
    // recorded before anything is rolled back: the next reconcile renders the old release from it
    const message = rollbackMessage(rollback);
    const status: StatusInput = {
      ...plan,
      phase: "Updating",
      message: `rolling back: ${message}`,
      reason: "RollingBack",
      rollback,
    };
    return [
      setStatus(platform, status, { type: "Warning", reason: "RolledBack", message }),
      // a status write does not requeue the Platform (the generation-changed filter), and a failed
      // component that stays as it is sends no event: come back to render the old release
      { type: "Requeue", afterMs: rollbackRenderMs },
    ];
  }
  const changes = changesOf(platform, plan);
  if (deleting && plan.finished)
    return [...changes, { type: "RemoveFinalizer", finalizer: teardownFinalizer }];
  const rolledBack = chosen?.rollback;
  const status = setStatus(platform, {
    ...plan,
    ...(rolledBack
      ? { message: `${plan.message} (${rollbackMessage(rolledBack)})`, rollback: rolledBack }
      : {}),
    ...(chosen?.gated ? { gated: chosen.gated } : {}),
    reason: deleting ? "Deleting" : rolledBack && plan.phase === "Updating" ? "RollingBack" : plan.phase,
    ...(deleting ? {} : { provider: o.provider }),
  });
  return [...changes, status, ...(deleting ? [{ type: "Requeue" as const, afterMs: teardownPollMs }] : [])];
}

/** The plan's Components applied wave by wave (each wave at once), then what it removes deleted. */
function changesOf(platform: PlatformResource, plan: PlatformPlan): PlatformReconcilePlan {
  return [
    ...plan.apply
      .filter((wave) => wave.length > 0)
      .map(
        (wave): PlatformCommand => ({
          type: "ApplyComponents",
          components: wave.map((component) => componentObject(platform, component)),
        }),
      ),
    ...plan.delete.map((name): PlatformReconcilePlan[number] => ({
      type: "Delete",
      resource: types.component,
      key: { namespace: platform.metadata.namespace, name },
      propagationPolicy: "Foreground",
    })),
  ];
}

type ReleaseChoice =
  | { release: Release; running?: Release; rollback?: RollbackRecord; gated?: string }
  | { waiting: string };

/**
 * The release to render: spec.version's, unless its update waits for gates or was rolled back, when
 * the release that last ran (status.version) stays.
 */
function chooseRelease(
  catalog: readonly Release[],
  platform: PlatformResource,
  specRelease: Release,
): ReleaseChoice {
  const runningVersion = platform.status?.version;
  const running = runningVersion ? findRelease(runningVersion, catalog) : undefined;
  const base = running ? { running } : {};
  const rollback = activeRollback(platform.status?.rollback, specRelease.version);
  if (rollback && running) return { ...base, release: running, rollback };
  const gates = pendingGates(runningVersion, specRelease, platform.spec.acknowledgedGates);
  if (gates.length === 0) return { ...base, release: specRelease };
  const gated = gatedMessage(specRelease.version, gates);
  return running ? { ...base, release: running, gated } : { waiting: gated };
}

type StatusInput = Pick<PlatformPlan, "phase" | "message"> &
  Partial<Pick<PlatformPlan, "version" | "ready" | "components">> & {
    reason: string;
    provider?: string;
    /** The rollback that holds (status.rollback, condition RolledBack). */
    rollback?: RollbackRecord;
    /** Why the update waits for gates (condition UpdateGated). */
    gated?: string;
  };

const transitions = ["Installing", "Updating", "Starting", "Stopping", "Deleting"];

/** The Platform's status, with an Event when the phase changed (or `event`, when given). */
function setStatus(
  platform: PlatformResource,
  input: StatusInput,
  event?: StatusEvent,
): PlatformReconcilePlan[number] {
  const previous = platform.status ?? {};
  const { status, event: phaseEvent } = phaseStatus(
    platform,
    {
      phase: input.phase,
      reason: input.reason,
      message: input.message,
      ready: input.phase === "Running",
      degraded: input.phase === "Degraded" || input.phase === "Failed",
      progressing: transitions.includes(input.phase),
    },
    {
      ...((input.version ?? previous.version) ? { version: input.version ?? previous.version } : {}),
      ready: input.ready ?? previous.ready ?? "0/0",
      components: input.components ?? previous.components ?? [],
      ...((input.provider ?? previous.provider) ? { provider: input.provider ?? previous.provider } : {}),
      ...(input.rollback ? { rollback: input.rollback } : {}),
    },
  );
  const generation = platform.metadata.generation ?? 0;
  let conditions = status.conditions;
  for (const { holds, condition } of updatePolicyConditions(input)) {
    conditions = holds
      ? setCondition(conditions, condition, generation)
      : removeCondition(conditions, condition.type);
  }
  const events = event ?? phaseEvent;
  return { type: "SetStatus", status: { ...status, conditions }, ...(events ? { events: [events] } : {}) };
}

/** RolledBack while a rollback holds, UpdateGated while an update waits for gates; absent otherwise. */
function updatePolicyConditions(input: StatusInput): { holds: boolean; condition: ConditionInput }[] {
  return [
    {
      holds: input.rollback !== undefined,
      condition: {
        type: "RolledBack",
        status: "True",
        reason: "UpdateFailed",
        message: input.rollback ? rollbackMessage(input.rollback) : "",
      },
    },
    {
      holds: input.gated !== undefined,
      condition: {
        type: "UpdateGated",
        status: "True",
        reason: "AwaitingAcknowledgement",
        message: input.gated ?? "",
      },
    },
  ];
}
