/**
 * The ImageBuild controller: for each build, gather what `decide` reads (observe.ts), let it decide
 * (decide.ts, every transition) and carry the decision out (execute.ts).
 */
import type { V1ConfigMap } from "@kubernetes/client-node";
import type { ImageBuild, ImageBuildStatus } from "../apis/builds/imagebuild.ts";
import { StatusWriter } from "../kube/status-writer.ts";
import type {
  Cache,
  ControllerSpec,
  KubeObject,
  ObjectKey,
  ReconcileContext,
  ResourceType,
} from "../kube/types.ts";
import { buildOfCrossNamespaceJob } from "./build-namespace.ts";
import type { BuildsConfig } from "./config.ts";
import { failedForOverride } from "./decide.ts";
import { type Executor, execute } from "./execute.ts";
import { deleteTiedJobs } from "./job-cleanup.ts";
import type { LocalBuilder } from "./local-builder.ts";
import { BuildMetrics } from "./metrics.ts";
import { decideObserving, observeBuild } from "./observe.ts";
import { type AmbientCredentials, overrideConfigMapName, type Vouching } from "./override.ts";
import { types } from "./resource-types.ts";
import { SecretReader } from "./secrets.ts";
import { SlotReservations } from "./slot-reservations.ts";
import { Wirings } from "./wiring.ts";

/**
 * Who may vouch for an override ConfigMap by controlling it (the operator wires the Platform's rule,
 * src/platform/builds-wiring.ts): objects of `type`, which the controller caches and on whose changes
 * it re-evaluates the namespace's builds.
 */
export interface OverrideVoucher {
  type: ResourceType;
  vouch: (configMap: V1ConfigMap, cache: Pick<Cache, "get">) => Vouching | undefined;
}

export interface ImageBuildControllerDeps {
  /** The operator's builds configuration, parsed at start; undefined: it has none (builds fail, saying so). */
  config: BuildsConfig | undefined;
  metrics?: BuildMetrics;
  /** For the local backend; default one with storage under config.local.storageRoot. */
  localBuilder?: LocalBuilder;
  /** Default 4. */
  concurrency?: number;
  /** The operator runs in dev mode (slipway dev): only then may the `local` backend build. */
  devMode?: boolean;
  /** None: an override is judged by the operator's configuration alone. */
  overrideVoucher?: OverrideVoucher;
  /** Where a store an override chooses may be served by the operator's ambient credentials; default nowhere. */
  ambientCredentials?: AmbientCredentials;
}

/** Builds of the namespace an override ConfigMap change concerns: those not finished, and those it failed. */
export function buildsConcernedBy(configMap: KubeObject, cache: Pick<Cache, "list">): ObjectKey[] {
  if (configMap.metadata?.name !== overrideConfigMapName) return [];
  return namespaceBuildsConcernedBy(configMap, cache);
}

/** Builds of the object's namespace its change may concern (a voucher's): those not finished, and those their override failed. */
function namespaceBuildsConcernedBy(object: KubeObject, cache: Pick<Cache, "list">): ObjectKey[] {
  const namespace = object.metadata?.namespace;
  if (!namespace) return [];
  return cache
    .list<ImageBuild>(types.imageBuild, { namespace })
    .filter((b) => {
      const phase = b.status?.phase;
      return (phase !== "Succeeded" && phase !== "Failed") || failedForOverride(b.status);
    })
    .map((b) => ({ namespace, name: b.metadata.name ?? "" }));
}

async function reconcileBuild(
  wirings: Wirings,
  executor: Executor,
  voucher: OverrideVoucher | undefined,
  key: ObjectKey,
  context: ReconcileContext,
) {
  const build = context.cache.get<ImageBuild>(types.imageBuild, key);
  if (!build) return undefined;
  // A deleted build's Job goes with it (owner reference, or the cleanup finalizer); the pushed image stays.
  if (build.metadata.deletionTimestamp) return deleteTiedJobs(build, context, executor.writer);
  const namespace = key.namespace ?? "default";
  const configMap = context.cache.get<V1ConfigMap>(types.overrideConfigMap, {
    namespace,
    name: overrideConfigMapName,
  });
  const vouched = configMap && voucher?.vouch(configMap, context.cache);
  const observation = observeBuild(build, wirings.for(namespace, configMap, vouched), new Date());
  const decided = await decideObserving(observation, executor.slots, context);
  if ("pendingMs" in decided) return { requeueAfterMs: decided.pendingMs };
  return execute(executor, build, observation, decided.decision, context);
}

/** The controller `slipway operator` runs; its metrics are returned too, for callers to read. */
export function imageBuildController(
  deps: ImageBuildControllerDeps,
): ControllerSpec & { buildMetrics: BuildMetrics } {
  const metrics = deps.metrics ?? new BuildMetrics();
  const secrets = new SecretReader();
  const wirings = new Wirings({
    base: deps.config,
    secrets,
    metrics,
    ...(deps.localBuilder ? { localBuilder: deps.localBuilder } : {}),
    devMode: deps.devMode ?? false,
    ...(deps.ambientCredentials ? { ambientCredentials: deps.ambientCredentials } : {}),
  });
  const executor: Executor = {
    writer: new StatusWriter<ImageBuildStatus>(),
    secrets,
    metrics,
    slots: new SlotReservations(),
  };
  const voucher = deps.overrideVoucher;
  return {
    name: "imagebuild",
    for: types.imageBuild,
    owns: [types.job],
    // the build pods' termination messages, read from the cache; their events enqueue nothing
    reads: [types.pod],
    watches: [
      // Jobs in the build namespace, tied to their build by labels instead of an owner reference.
      { type: types.job, map: (job) => [buildOfCrossNamespaceJob(job)].filter((key) => key !== undefined) },
      { type: types.overrideConfigMap, map: buildsConcernedBy },
      ...(voucher ? [{ type: voucher.type, map: namespaceBuildsConcernedBy }] : []),
    ],
    reconcile: (key, context) => reconcileBuild(wirings, executor, voucher, key, context),
    concurrency: deps.concurrency ?? 4,
    permissions: [
      { type: types.imageBuild, verbs: ["patch"], subresource: "status" },
      // the cleanup finalizer of builds whose Job runs in the build namespace
      { type: types.imageBuild, verbs: ["patch"] },
      { type: types.job, verbs: ["create", "patch", "delete"] },
      // get: credentials and build arguments; create/patch/delete: the copy of a build's secret
      // arguments next to its Job in the build namespace
      { type: types.secret, verbs: ["get", "create", "patch", "delete"] },
    ],
    metrics: metrics.registry,
    buildMetrics: metrics,
  };
}
