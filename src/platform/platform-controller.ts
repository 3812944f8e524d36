/**
 * The Platform controller: renders the Platform into one Component per enabled service (owned by
 * it), creates and changes them in the order planPlatform decides, and reports the Platform's phase.
 */
import type { ComponentResource } from "../apis/platform/component.ts";
import type { PlatformResource } from "../apis/platform/platform.ts";
import { StatusWriter, soonerRequeue } from "../kube/status-writer.ts";
import type { ControllerSpec, ObjectKey, ReconcileContext } from "../kube/types.ts";
import { findRelease, ownVersion, releases } from "./catalog.ts";
import { phaseStatus } from "./phase-status.ts";
import { type PlatformPlan, planPlatform } from "./platform-plan.ts";
import { PlatformResources, platformProvider, providerType } from "./platform-resources.ts";
import { componentObject, type RenderOptions, renderComponents } from "./render.ts";
import { types } from "./resource-types.ts";

/** Held while Components are torn down in reverse dependency order. */
export const teardownFinalizer = "platform.slipway.dev/ordered-teardown";

/** How soon a Platform failed on a credential Secret that is not its own looks at it again. */
const credentialRecheckMs = 30_000;

type PlatformStatus = NonNullable<PlatformResource["status"]>;
type Writer = StatusWriter<PlatformStatus>;

interface PlatformDeps {
  writer: Writer;
  resources: PlatformResources;
  render: RenderOptions;
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

  const targetVersion = platform.spec.version ?? ownVersion;
  const release = findRelease(targetVersion);
  const observed = observedComponents(cache, platform);
  if (!release && !deleting) {
    const known = releases.map((r) => r.version).join(", ");
    const { requeueAfterMs } = await writeStatus(writer, context, platform, {
      phase: "Failed",
      message: `spec.version ${targetVersion} is not a release this operator knows (known: ${known})`,
      reason: "UnknownVersion",
    });
    return requeueAfterMs > 0 ? { requeueAfterMs } : undefined;
  }
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
    targetVersion,
    stopped: platform.spec.stopped ?? false,
    deleting,
    ...(platform.status?.phase ? { previousPhase: platform.status.phase } : {}),
    ...(platform.status?.version ? { runningVersion: platform.status.version } : {}),
    specChanged: platform.status?.observedGeneration !== platform.metadata.generation,
    desired,
    observed,
  });

  await carryOut(client, platform, plan);
  if (deleting && plan.finished) {
    await client.removeFinalizer(types.platform, key, teardownFinalizer);
    return undefined;
  }
  const { requeueAfterMs } = await writeStatus(writer, context, platform, {
    ...plan,
    reason: deleting ? "Deleting" : plan.phase,
    ...(deleting ? {} : { provider: platformProvider(platform).metadata?.name }),
  });
  // a held-back detail is due within a second, before the teardown's own 5 s poll
  const next = soonerRequeue(requeueAfterMs, deleting ? 5_000 : undefined);
  return next ? { requeueAfterMs: next } : undefined;
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
  Partial<Pick<PlatformPlan, "version" | "ready" | "components">> & { reason: string; provider?: string };

const transitions = ["Installing", "Updating", "Starting", "Stopping", "Deleting"];

/** Writes the Platform's status, with an Event when the phase changed. */
function writeStatus(
  writer: Writer,
  context: ReconcileContext,
  platform: PlatformResource,
  input: StatusInput,
) {
  const previous = platform.status ?? {};
  const { status, event } = phaseStatus(
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
    },
  );
  return writer.write(context, platform, status, event);
}

export function platformController(
  resources: PlatformResources = new PlatformResources(),
  render: RenderOptions = {},
): ControllerSpec {
  // A status write reports these at once. The ready count, the component rows and the message are
  // refreshed at most once a second (each Component reports its own at once).
  const writer: Writer = new StatusWriter({
    pacing: { intervalMs: 1_000, headline: ["phase", "version", "observedGeneration"] },
  });
  return {
    name: "platform",
    for: types.platform,
    owns: [types.component],
    reconcile: (key, context) => reconcilePlatform({ writer, resources, render }, key, context),
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
