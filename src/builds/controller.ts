/**
 * The ImageBuild controller: gathers what `decide` asks for (registry, artifact, run), then carries
 * out its decision (start or delete the run, write status, record an Event, count metrics).
 */
import { readFileSync } from "node:fs";
import type { V1ConfigMap, V1Job } from "@kubernetes/client-node";
import { parse as parseYaml } from "yaml";
import type { ImageBuild, ImageBuildStatus } from "../apis/builds/imagebuild.ts";
import { shortHash } from "../kube/canonical.ts";
import { keyOf } from "../kube/keys.ts";
import { sameJson } from "../kube/same-json.ts";
import type {
  Cache,
  ControllerSpec,
  KubeObject,
  ObjectKey,
  ReconcileContext,
  ReconcileResult,
} from "../kube/types.ts";
import { BuildAccess } from "./access.ts";
import {
  BuildArgumentError,
  type BuildBackend,
  KanikoBackend,
  LocalBackend,
  type RunTarget,
} from "./backends.ts";
import { type BlobUri, parseBlobUri } from "./blob-uri.ts";
import {
  buildArgsSecretName,
  isCrossNamespace,
  jobCleanupFinalizer,
  jobNamespace,
  ownerLabels,
  tiedBuild,
} from "./build-namespace.ts";
import { type BuildsConfig, configEnvironmentVariable, parseBuildsConfig } from "./config.ts";
import { type Decision, decide, type Observed } from "./decide.ts";
import { buildResources, timeoutSeconds } from "./kaniko-job.ts";
import { LocalBuilder } from "./local-builder.ts";
import { BuildMetrics } from "./metrics.ts";
import {
  buildJobName,
  formatImageReference,
  type ImageReference,
  imageReference,
  registryPrefix,
} from "./naming.ts";
import { applyOverride, overrideConfigMapName } from "./override.ts";
import { types } from "./resource-types.ts";
import { SecretReader } from "./secrets.ts";

export interface ImageBuildControllerOptions {
  /** Default: the file named by $SLIPWAY_BUILDS_CONFIG, read at the first reconcile. */
  config?: BuildsConfig;
  metrics?: BuildMetrics;
  /** For the local backend; default one with storage under config.local.storageRoot. */
  localBuilder?: LocalBuilder;
  /** Default 4. */
  concurrency?: number;
}

/** `{hash}` of the naming template: what decides the image's content. */
export function contentHash(build: ImageBuild): string {
  const { artifactUri, dockerfile, baseImage, buildArgs } = build.spec;
  return shortHash(JSON.stringify({ artifactUri, dockerfile, baseImage, buildArgs }), 12);
}

function referenceOf(build: ImageBuild, config: BuildsConfig): { image: ImageReference } | { error: string } {
  try {
    const { project, name, version } = build.spec;
    const values = {
      registry: registryPrefix(config.registry.url),
      project,
      name,
      version,
      hash: contentHash(build),
    };
    return { image: imageReference(config.naming.image, values) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

function failedForOverride(build: ImageBuild): boolean {
  return build.status?.phase === "Failed" && build.status.conditions?.[0]?.reason === invalidOverride;
}

function configFromEnvironment(): BuildsConfig {
  const path = process.env[configEnvironmentVariable];
  if (!path)
    throw new Error(
      `the operator has no image-build configuration: set ${configEnvironmentVariable} to its file`,
    );
  return parseBuildsConfig(parseYaml(readFileSync(path, "utf8")));
}

interface Wiring {
  config: BuildsConfig;
  access: BuildAccess;
  backend: BuildBackend;
}

const buildingPollMs = 3_000;
const pendingPollMs = 1_000;
/** The failure reason of a bad per-namespace override; such a build runs again once the override changes. */
const invalidOverride = "InvalidOverride";

export class ImageBuildReconciler {
  readonly metrics: BuildMetrics;
  readonly secrets = new SecretReader();
  readonly #options: ImageBuildControllerOptions;
  #base: BuildsConfig | undefined;
  #baseWiring: Wiring | undefined;
  /**
   * Per namespace with an override ConfigMap: the ConfigMap's resourceVersion and what it made (the
   * wiring of the merged configuration, or why the override is invalid), so an override is parsed
   * and validated once per change, not on every reconcile.
   */
  readonly #overrides = new Map<
    string,
    { version: string; result: { wiring: Wiring } | { error: string } }
  >();
  #localBuilder: LocalBuilder | undefined;

  constructor(options: ImageBuildControllerOptions = {}) {
    this.#options = options;
    this.metrics = options.metrics ?? new BuildMetrics();
  }

  #baseConfig(): BuildsConfig {
    this.#base ??= this.#options.config ?? configFromEnvironment();
    return this.#base;
  }

  #wiringFor(
    namespace: string,
    configMap: V1ConfigMap | undefined,
    base: BuildsConfig,
  ): { wiring: Wiring } | { error: string } {
    if (!configMap) {
      this.#overrides.delete(namespace);
      this.#baseWiring ??= this.#wire(base);
      return { wiring: this.#baseWiring };
    }
    const version = configMap.metadata?.resourceVersion ?? "";
    const known = this.#overrides.get(namespace);
    if (known?.version === version) return known.result;
    const overridden = applyOverride(base, namespace, configMap.data ?? {});
    const result = "error" in overridden ? overridden : { wiring: this.#wire(overridden.config) };
    this.#overrides.set(namespace, { version, result });
    return result;
  }

  #wire(config: BuildsConfig): Wiring {
    const access = new BuildAccess(config, this.secrets, this.metrics);
    let backend: BuildBackend;
    if (config.backend === "local") {
      // one builder for every configuration: runs are keyed by image reference across namespaces
      this.#localBuilder ??= this.#options.localBuilder ?? new LocalBuilder(config.local.storageRoot);
      backend = new LocalBackend(config, this.#localBuilder, access, this.secrets);
    } else backend = new KanikoBackend(config, this.secrets);
    return { config, access, backend };
  }

  /** Builds of the namespace an override ConfigMap change concerns: those not finished, and those it failed. */
  buildsConcernedBy(configMap: KubeObject, cache: Cache): ObjectKey[] {
    const namespace = configMap.metadata?.namespace;
    if (configMap.metadata?.name !== overrideConfigMapName || !namespace) return [];
    return cache
      .list<ImageBuild>(types.imageBuild, { namespace })
      .filter((b) => {
        const phase = b.status?.phase;
        return (phase !== "Succeeded" && phase !== "Failed") || failedForOverride(b);
      })
      .map((b) => ({ namespace, name: b.metadata.name ?? "" }));
  }

  readonly reconcile = async (
    key: ObjectKey,
    context: ReconcileContext,
  ): Promise<ReconcileResult | undefined> => {
    const build = context.cache.get<ImageBuild>(types.imageBuild, key);
    if (!build) return undefined;
    // A deleted build's Job goes with it (owner reference, or the cleanup finalizer); the pushed image stays.
    if (build.metadata.deletionTimestamp) return this.#deleteTiedJobs(build, context);
    const generation = build.metadata.generation ?? 0;
    const phase = build.status?.phase;
    const retryAfterOverride = failedForOverride(build);
    if (
      (phase === "Succeeded" || phase === "Failed") &&
      build.status?.observedGeneration === generation &&
      !retryAfterOverride
    )
      return undefined;
    const namespace = key.namespace ?? "default";

    let base: BuildsConfig;
    try {
      base = this.#baseConfig();
    } catch (error) {
      await this.#fail(build, "NotConfigured", (error as Error).message, context);
      return undefined;
    }
    const configMap = context.cache.get<V1ConfigMap>(types.overrideConfigMap, {
      namespace,
      name: overrideConfigMapName,
    });
    const wired = this.#wiringFor(namespace, configMap, base);
    if ("error" in wired) {
      await this.#fail(build, invalidOverride, wired.error, context);
      return undefined;
    }
    const { wiring } = wired;
    const { config, access, backend } = wiring;
    const jobNamespaceName = jobNamespace(namespace, config);
    const reference = referenceOf(build, config);
    const image = "image" in reference ? reference.image : undefined;
    const imageText = image ? formatImageReference(image) : "";
    let artifact: BlobUri;
    try {
      artifact = parseBlobUri(build.spec.artifactUri);
    } catch (error) {
      // The schema refuses such a URI; this guards objects stored before it did.
      await this.#fail(build, "InvalidArtifactUri", (error as Error).message, context);
      return undefined;
    }
    const target: RunTarget | undefined = image
      ? { build, namespace: jobNamespaceName, image, artifact, jobName: buildJobName(imageText) }
      : undefined;
    const observed: Observed = {
      generation,
      // a build the override failed starts over
      status: retryAfterOverride ? undefined : build.status,
      now: new Date(),
      reference: image ? { image: imageText } : { error: "error" in reference ? reference.error : "" },
      artifactUri: build.spec.artifactUri,
      timeoutSeconds: timeoutSeconds(build, config),
      memoryLimit: buildResources(build, config).limits.memory ?? "none",
      jobName: target?.jobName ?? "",
      runningBuilds: backend.running(context),
      maxConcurrentBuilds: config.maxConcurrentBuilds,
    };
    for (;;) {
      const decision = decide(observed);
      if (decision.kind === "act") return this.#execute(build, decision, context, wiring, target);
      if (!image || !target) throw new Error("decide asked for an observation without an image reference");
      if (decision.what === "registry")
        observed.registry = await access.checkImage(context.client, jobNamespaceName, image);
      else if (decision.what === "artifact")
        observed.artifact = await access.checkArtifact(context.client, jobNamespaceName, artifact);
      else {
        const { run, pending } = await backend.observe(target, context);
        if (pending) return { requeueAfterMs: pendingPollMs };
        observed.run = run;
      }
    }
  };

  /** A build being deleted whose Job lives in another namespace: delete that Job, then let the build go. */
  async #deleteTiedJobs(build: ImageBuild, context: ReconcileContext): Promise<undefined> {
    if (!build.metadata.finalizers?.includes(jobCleanupFinalizer)) return undefined;
    const uid = build.metadata.uid ?? "";
    const jobs = context.cache.list<V1Job>(types.job, { labels: { [ownerLabels.uid]: uid } });
    // an operator watching only its own namespace does not cache the build namespace: read the
    // build's Job there (buildNamespace is never overridden per namespace)
    let buildNamespace: string | undefined;
    try {
      buildNamespace = this.#baseConfig().buildNamespace;
    } catch {
      buildNamespace = undefined; // no configuration: nothing was built anywhere else
    }
    const jobName = build.status?.jobName;
    if (jobs.length === 0 && buildNamespace && jobName) {
      const job = await context.client.get<V1Job>(types.job, { namespace: buildNamespace, name: jobName });
      if (job?.metadata?.labels?.[ownerLabels.uid] === uid) jobs.push(job);
    }
    for (const job of jobs) {
      const namespace = job.metadata?.namespace ?? "";
      const name = job.metadata?.name ?? "";
      await context.client.delete(types.job, { namespace, name }, { propagationPolicy: "Background" });
      // owned by the Job, unless the build stopped between creating the copy and the Job
      await context.client.delete(types.secret, { namespace, name: buildArgsSecretName(name) });
    }
    await context.client.removeFinalizer(types.imageBuild, keyOf(build), jobCleanupFinalizer);
    return undefined;
  }

  async #fail(build: ImageBuild, reason: string, message: string, context: ReconcileContext) {
    const generation = build.metadata.generation ?? 0;
    const condition = build.status?.conditions?.[0];
    // An invalid override is looked at again on every reconcile: the same failure is reported once.
    if (
      build.status?.phase === "Failed" &&
      build.status.observedGeneration === generation &&
      condition?.reason === reason &&
      condition.message === message
    )
      return;
    const now = new Date().toISOString();
    await this.#writeStatus(
      build,
      {
        phase: "Failed",
        message,
        observedGeneration: generation,
        completedAt: now,
        conditions: [
          {
            type: "Succeeded",
            status: "False",
            reason,
            message,
            observedGeneration: generation,
            lastTransitionTime: now,
          },
        ],
      },
      context,
    );
    context.events.event(build, "Warning", reason, message);
  }

  async #execute(
    build: ImageBuild,
    decision: Decision & { kind: "act" },
    context: ReconcileContext,
    wiring: Wiring,
    target: RunTarget | undefined,
  ): Promise<ReconcileResult | undefined> {
    const { backend } = wiring;
    if (decision.deleteRun && target) await backend.stop(target, context);
    if (decision.startRun && target) {
      // before the Job exists, so that no Job in another namespace can outlive its build
      if (backend.name === "kaniko" && isCrossNamespace(build, target.namespace))
        await context.client.addFinalizer(types.imageBuild, keyOf(build), jobCleanupFinalizer);
      const { run } = await backend.observe(target, context);
      try {
        await backend.start(target, context, run);
      } catch (error) {
        if (!(error instanceof BuildArgumentError)) throw error;
        await this.#fail(build, "InvalidBuildArgument", this.secrets.redact(error.message), context);
        return undefined;
      }
      if (run.state !== "running") this.metrics.started.inc({ backend: backend.name });
    }
    const status = decision.status ? this.#redacted(decision.status) : undefined;
    if (status) {
      await this.#writeStatus(build, status, context);
      this.#count(build, status, backend.name);
    }
    if (decision.event)
      context.events.event(
        build,
        decision.event.type,
        decision.event.reason,
        this.secrets.redact(decision.event.message),
      );
    // A build may follow a Job it does not own (joined), whose events do not reach it: poll while building.
    const requeue =
      status?.phase === "Building"
        ? Math.min(decision.requeueAfterMs ?? buildingPollMs, buildingPollMs)
        : decision.requeueAfterMs;
    return requeue ? { requeueAfterMs: requeue } : undefined;
  }

  #redacted(status: ImageBuildStatus): ImageBuildStatus {
    return {
      ...status,
      ...(status.message ? { message: this.secrets.redact(status.message) } : {}),
      ...(status.conditions
        ? { conditions: status.conditions.map((c) => ({ ...c, message: this.secrets.redact(c.message) })) }
        : {}),
    };
  }

  #count(build: ImageBuild, status: ImageBuildStatus, backend: string) {
    if (build.status?.phase === status.phase) return;
    const seconds =
      status.startedAt && status.completedAt
        ? (Date.parse(status.completedAt) - Date.parse(status.startedAt)) / 1000
        : undefined;
    if (status.phase === "Succeeded") {
      if (status.reused) this.metrics.reused.inc();
      else this.metrics.succeeded.inc({ backend });
    } else if (status.phase === "Failed") {
      this.metrics.failed.inc({ reason: status.conditions?.[0]?.reason ?? "Unknown" });
    } else return;
    if (seconds !== undefined) this.metrics.duration.observe({ result: status.phase }, seconds);
  }

  async #writeStatus(build: ImageBuild, status: ImageBuildStatus, context: ReconcileContext) {
    if (sameJson(build.status ?? {}, status)) return;
    await context.client.applyStatus({ ...build, status });
  }
}

/** The controller `slipway operator` runs; the reconciler is returned too so callers can reach its metrics. */
export function imageBuildController(
  options: ImageBuildControllerOptions = {},
): ControllerSpec & { reconciler: ImageBuildReconciler } {
  const reconciler = new ImageBuildReconciler(options);
  return {
    name: "imagebuild",
    for: types.imageBuild,
    owns: [types.job],
    watches: [
      // Pods only so the cache holds the build pods' termination messages; their events enqueue nothing.
      { type: types.pod, map: () => [] },
      // Jobs in the build namespace, tied to their build by labels instead of an owner reference.
      { type: types.job, map: (job) => [tiedBuild(job)].filter((key) => key !== undefined) },
      {
        type: types.overrideConfigMap,
        map: (configMap, cache) => reconciler.buildsConcernedBy(configMap, cache),
      },
    ],
    reconcile: reconciler.reconcile,
    concurrency: options.concurrency ?? 4,
    permissions: [
      { type: types.imageBuild, verbs: ["patch"], subresource: "status" },
      // the cleanup finalizer of builds whose Job runs in the build namespace
      { type: types.imageBuild, verbs: ["patch"] },
      { type: types.job, verbs: ["create", "patch", "delete"] },
      // get: credentials and build arguments; create/patch/delete: the copy of a build's secret
      // arguments next to its Job in the build namespace
      { type: types.secret, verbs: ["get", "create", "patch", "delete"] },
    ],
    metrics: reconciler.metrics.registry,
    reconciler,
  };
}
