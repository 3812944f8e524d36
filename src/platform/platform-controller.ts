/**
 * The Platform controller: renders the Platform into one Component per enabled service (owned by
 * it), creates and changes them in the order planPlatform decides, and reports the Platform's phase.
 */
import type { ComponentResource } from "../apis/platform/component.ts";
import type { PlatformResource } from "../apis/platform/platform.ts";
import { type ConditionInput, removeCondition, setCondition } from "../kube/conditions.ts";
import { type StatusEvent, StatusWriter, soonerRequeue } from "../kube/status-writer.ts";
import type { ControllerSpec, ObjectKey, ReconcileContext } from "../kube/types.ts";
import { findRelease, ownVersion, type Release, releases } from "./catalog.ts";
import { phaseStatus } from "./phase-status.ts";
import { type PlatformPlan, planPlatform } from "./platform-plan.ts";
import { PlatformResources, platformProvider, providerType } from "./platform-resources.ts";
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
const credentialRecheckMs = 30_000;
/** After recording a rollback: once the cache has the write, the old release is rendered. */
const rollbackRenderMs = 500;

type PlatformStatus = NonNullable<PlatformResource["status"]>;
type Writer = StatusWriter<PlatformStatus>;

interface PlatformDeps {
  writer: Writer;
  resources: PlatformResources;
  render: RenderOptions;
  /** The releases this operator knows (catalog.ts's; tests give their own). */
  releases: readonly Release[];
}

async function reconcilePlatform(deps: PlatformDeps, key: ObjectKey, context: ReconcileContext) {
  const { writer } = deps;
  const { cache, client } = context;
  const platform = cache.get<PlatformResource>(types.platform, key);
  if (!platform) return undefined;
  const deleting = Boolean(platform.metadata.deletionTimestamp);
  if (deleting && !platform.metadata.finalizers?.includes(teardownFinalizer)) return undefined;
  if (!deleting && !platform.metadata.finalizers?.includes(teardownFinalizer)) {
    await client.addFinalizer(types.platform, key, teardownFinalizer);
  }

  const specVersion = platform.spec.version ?? ownVersion;
  const specRelease = findRelease(specVersion, deps.releases);
  const observed = observedComponents(cache, platform);
  if (!specRelease && !deleting) {
    const known = deps.releases.map((r) => r.version).join(", ");
    const { requeueAfterMs } = await writeStatus(writer, context, platform, {
      phase: "Failed",
      message: `spec.version ${specVersion} is not a release this operator knows (known: ${known})`,
      reason: "UnknownVersion",
    });
    return requeueAfterMs > 0 ? { requeueAfterMs } : undefined;
  }
  const target = deleting ? undefined : chooseRelease(deps.releases, platform, specRelease);
  if (target && "waiting" in target) {
    // gated with no release of what runs to render: nothing is applied until acknowledged
    const { requeueAfterMs } = await writeStatus(writer, context, platform, {
      phase: platform.status?.phase ?? "Updating",
      message: target.waiting,
      reason: "AwaitingAcknowledgement",
      gated: target.waiting,
    });
    return requeueAfterMs > 0 ? { requeueAfterMs } : undefined;
  }
  // a Platform being deleted renders what it asks for only for its status rows
  const release = deleting ? specRelease : target?.release;
  const namespace = key.namespace ?? "";
  const desired = release ? renderComponents(key.name, namespace, platform.spec, release, deps.render) : [];
  // the Secrets exist before any workload naming them; the Provider comes with the platform
  const refused = deleting ? undefined : await deps.resources.ensure(client, platform);
  if (refused) {
    // nothing runs on a credential that is not the platform's; Secrets are not watched: look again
    const { requeueAfterMs } = await writeStatus(writer, context, platform, {
      phase: "Failed",
      message: refused.refused,
      reason: "CredentialNotOwned",
    });
    return { requeueAfterMs: soonerRequeue(requeueAfterMs, credentialRecheckMs) ?? credentialRecheckMs };
  }
  const plan = planPlatform({
    targetVersion: release?.version ?? specVersion,
    stopped: platform.spec.stopped ?? false,
    deleting,
    ...(platform.status?.phase ? { previousPhase: platform.status.phase } : {}),
    ...(platform.status?.version ? { runningVersion: platform.status.version } : {}),
    specChanged: platform.status?.observedGeneration !== platform.metadata.generation,
    desired,
    observed,
  });
  const rollback =
    target?.rollback === undefined && !deleting && plan.phase === "Failed"
      ? rollbackDecision({
          policy: platform.spec.updatePolicy?.onFailure,
          targetVersion: specVersion,
          runningVersion: target?.running?.version,
          failures: plan.failures,
        })
      : undefined;
  if (rollback) {
    // recorded before anything is rolled back: the next reconcile renders the old release from it
    const message = rollbackMessage(rollback);
    const { requeueAfterMs } = await writeStatus(
      writer,
      context,
      platform,
      { ...plan, phase: "Updating", message: `rolling back: ${message}`, reason: "RollingBack", rollback },
      { type: "Warning", reason: "RolledBack", message },
    );
    // a status write does not requeue the Platform (the generation-changed filter), and a failed
    // component that stays as it is sends no event: come back to render the old release
    return { requeueAfterMs: soonerRequeue(requeueAfterMs, rollbackRenderMs) ?? rollbackRenderMs };
  }

  await carryOut(client, platform, plan);
  if (deleting && plan.finished) {
    await client.removeFinalizer(types.platform, key, teardownFinalizer);
    return undefined;
  }
  const rolledBack = target?.rollback;
  const { requeueAfterMs } = await writeStatus(writer, context, platform, {
    ...plan,
    ...(rolledBack
      ? { message: `${plan.message} (${rollbackMessage(rolledBack)})`, rollback: rolledBack }
      : {}),
    ...(target?.gated ? { gated: target.gated } : {}),
    reason: deleting ? "Deleting" : rolledBack && plan.phase === "Updating" ? "RollingBack" : plan.phase,
    ...(deleting ? {} : { provider: platformProvider(platform).metadata?.name }),
  });
  // a held-back detail is due within a second, before the teardown's own 5 s poll
  const next = soonerRequeue(requeueAfterMs, deleting ? 5_000 : undefined);
  return next ? { requeueAfterMs: next } : undefined;
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
  specRelease: Release | undefined,
): ReleaseChoice | undefined {
  if (!specRelease) return undefined;
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

/** The Platform's Components as the plan reads them. */
function observedComponents(cache: ReconcileContext["cache"], platform: PlatformResource) {
  return cache
    .byIndex<ComponentResource>(types.component, "controller", platform.metadata.uid ?? "")
    .map((c) => ({
      objectName: c.metadata.name ?? "",
      spec: c.spec,
      generation: c.metadata.generation ?? 0,
      deleting: Boolean(c.metadata.deletionTimestamp),
      status: c.status ?? {},
    }));
}

/** Applies the plan's Components wave by wave (each wave at once), then deletes what it removes. */
async function carryOut(client: ReconcileContext["client"], platform: PlatformResource, plan: PlatformPlan) {
  for (const wave of plan.apply) {
    await Promise.all(wave.map((component) => client.apply(componentObject(platform, component))));
  }
  for (const name of plan.delete) {
    const key = { namespace: platform.metadata.namespace, name };
    await client.delete(types.component, key, { propagationPolicy: "Foreground" });
  }
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

/** Writes the Platform's status, with an Event when the phase changed (or `event`, when given). */
function writeStatus(
  writer: Writer,
  context: ReconcileContext,
  platform: PlatformResource,
  input: StatusInput,
  event?: StatusEvent,
) {
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
  return writer.write(context, platform, { ...status, conditions }, event ?? phaseEvent);
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

export function platformController(
  resources: PlatformResources = new PlatformResources(),
  render: RenderOptions = {},
  catalog: readonly Release[] = releases,
): ControllerSpec {
  // A status write reports these at once. The ready count, the component rows and the message are
  // refreshed at most once a second (each Component reports its own at once).
  const writer: Writer = new StatusWriter({
    pacing: { intervalMs: 1_000, headline: ["phase", "version", "observedGeneration", "rollback"] },
  });
  return {
    name: "platform",
    for: types.platform,
    owns: [types.component],
    reconcile: (key, context) =>
      reconcilePlatform({ writer, resources, render, releases: catalog }, key, context),
    concurrency: 2,
    permissions: [
      { type: types.platform, verbs: ["patch", "update"] },
      { type: types.platform, verbs: ["patch"], subresource: "status" },
      { type: types.component, verbs: ["create", "patch", "delete"] },
      // the credential Secrets: read live (never cached), created once
      { type: types.secret, verbs: ["get", "create", "patch"] },
      { type: types.configMap, verbs: ["get", "create", "patch"] },
      { type: providerType, verbs: ["get", "create", "patch"] },
    ],
  };
}
