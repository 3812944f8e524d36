/**
 * The Platform controller: renders the Platform into one Component per enabled service (owned by
 * it), creates and changes them in the order planPlatform decides, and reports the Platform's phase.
 * It observes (the cache), plans (platform-reconcile.ts, pure) and carries the plan out with
 * `executePlan`; its credential Secrets, Provider and builds override (platform-resources.ts) and a
 * wave of Components are its own commands (`carryOut`).
 */
import type { ComponentResource } from "../apis/platform/component.ts";
import type { PlatformResource } from "../apis/platform/platform.ts";
import { executePlan } from "../kube/plan.ts";
import { StatusWriter } from "../kube/status-writer.ts";
import type { ControllerSpec, ObjectKey, ReconcileContext } from "../kube/types.ts";
import { type Release, releases } from "./catalog.ts";
import {
  afterResources,
  type ObservedPlatform,
  type PlatformCommand,
  type PlatformReconcilePlan,
  type PlatformStatus,
  planPlatformReconcile,
} from "./platform-reconcile.ts";
import { PlatformResources, platformProvider, providerType } from "./platform-resources.ts";
import type { RenderOptions } from "./render.ts";
import { types } from "./resource-types.ts";

type Writer = StatusWriter<PlatformStatus>;

interface PlatformDeps {
  writer: Writer;
  resources: PlatformResources;
  render: RenderOptions;
  /** The releases this operator knows (catalog.ts's; tests give their own). */
  releases: readonly Release[];
}

async function reconcilePlatform(deps: PlatformDeps, key: ObjectKey, context: ReconcileContext) {
  const platform = context.cache.get<PlatformResource>(types.platform, key);
  if (!platform) return undefined;
  const observed: ObservedPlatform = {
    platform,
    components: observedComponents(context.cache, platform),
    releases: deps.releases,
    render: deps.render,
    provider: platformProvider(platform).metadata?.name ?? "",
  };
  return executePlan(
    planPlatformReconcile(observed),
    { resource: types.platform, object: platform, writer: deps.writer, context },
    (command: PlatformCommand) => carryOut(deps.resources, context, observed, command),
  );
}

/** Carries out the Platform's own commands; answers what follows (platform-reconcile.ts). */
async function carryOut(
  resources: PlatformResources,
  context: ReconcileContext,
  observed: ObservedPlatform,
  command: PlatformCommand,
): Promise<PlatformReconcilePlan> {
  switch (command.type) {
    case "EnsureResources":
      return afterResources(observed, (await resources.ensure(context.client, observed.platform))?.refused);
    case "ApplyComponents":
      await Promise.all(command.components.map((component) => context.client.apply(component)));
      return [];
  }
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
