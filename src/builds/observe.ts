/**
 * Gathering what `decide` reads for one ImageBuild: first what every decision reads (its
 * configuration, image reference, artifact URI, Job), then, one at a time, what the decision asks for
 * (registry, artifact, run, secret build arguments), until it acts.
 */
import type { ImageBuild } from "../apis/builds/imagebuild.ts";
import type { ReconcileContext } from "../kube/types.ts";
import { shortHash } from "../lib/canonical.ts";
import type { BuildBackend, JobTarget, SecretArgs } from "./backends.ts";
import { parseBlobUri } from "./blob-uri.ts";
import { buildResources, timeoutSeconds } from "./build-job.ts";
import { isCrossNamespace, jobNameFor, jobNamespace } from "./build-namespace.ts";
import { countPerNamespace, queuedBuild, type SlotUsage } from "./build-slots.ts";
import { type Blocked, type Decision, decide, type Observed } from "./decide.ts";
import { formatImageReference, type ImageReference, imageReference, registryPrefix } from "./naming.ts";
import { types } from "./resource-types.ts";
import type { SlotReservations } from "./slot-reservations.ts";
import {
  dockerfileRefusal,
  imageRefusal,
  namespacePrefix,
  pushSecretRefusal,
  repositoryRule,
  resourcesRefusal,
} from "./tenancy.ts";
import type { Wiring, WiringResult } from "./wiring.ts";

/** What a build's decision is made from, and what carrying it out needs. */
export type BuildObservation =
  | { blocked: Blocked }
  | { observed: Observed; wiring: Wiring; target: JobTarget; secretArgs: Record<string, string> };

/**
 * `{hash}` of the naming template: what decides the image's content. The field order is part of
 * every image name made with `{hash}`: changing it would rebuild them all.
 */
export function imageContentHash(build: ImageBuild): string {
  const { artifactUri, dockerfile, baseImage, buildArgs } = build.spec;
  return shortHash(JSON.stringify({ artifactUri, dockerfile, baseImage, buildArgs }), 12);
}

/** What the shared build namespace refuses a build of another namespace: resources over the cap, no push Secret. */
function sharedNamespaceBlocker(build: ImageBuild, wiring: Wiring): Blocked["blocker"] | undefined {
  const { config, platform, backend } = wiring;
  const namespace = build.metadata.namespace ?? "default";
  if (backend.name === "local" || !isCrossNamespace(build, jobNamespace(namespace, config))) return undefined;
  const resources = resourcesRefusal(buildResources(build, config), platform.tenancy.maxResources);
  if (resources) return { reason: "ResourcesNotAllowed", message: resources };
  const push = pushSecretRefusal(config, namespace);
  return push ? { reason: "NotConfigured", message: push } : undefined;
}

function referenceOf(build: ImageBuild, wiring: Wiring): ImageReference {
  const { config, platform } = wiring;
  const { project, name, version } = build.spec;
  const values = {
    registry: registryPrefix(config.registry.url),
    prefix: namespacePrefix(platform, build.metadata.namespace ?? "default"),
    project,
    name,
    version,
    hash: imageContentHash(build),
  };
  return imageReference(config.naming.image, values);
}

/** What every decision of `build` reads; a blocker when no build can be attempted. */
export function observeBuild(build: ImageBuild, wired: WiringResult, now: Date): BuildObservation {
  const known = { generation: build.metadata.generation ?? 0, status: build.status, now };
  if ("blocker" in wired) return { blocked: { ...known, blocker: wired.blocker } };
  const { wiring } = wired;
  const { config } = wiring;
  let image: ImageReference;
  try {
    image = referenceOf(build, wiring);
  } catch (error) {
    return {
      blocked: { ...known, blocker: { reason: "InvalidImageName", message: (error as Error).message } },
    };
  }
  const dockerfile = dockerfileRefusal(build.spec.dockerfile ?? "Dockerfile");
  if (dockerfile)
    return { blocked: { ...known, blocker: { reason: "InvalidDockerfile", message: dockerfile } } };
  const buildNamespace = build.metadata.namespace ?? "default";
  const refusal = imageRefusal(image, repositoryRule(wiring.platform, config, buildNamespace));
  if (refusal) return { blocked: { ...known, blocker: { reason: "ImageNotAllowed", message: refusal } } };
  const shared = sharedNamespaceBlocker(build, wiring);
  if (shared) return { blocked: { ...known, blocker: shared } };
  let artifact: JobTarget["artifact"];
  try {
    artifact = parseBlobUri(build.spec.artifactUri);
  } catch (error) {
    // The schema refuses such a URI; this guards objects stored before it did.
    return {
      blocked: { ...known, blocker: { reason: "InvalidArtifactUri", message: (error as Error).message } },
    };
  }
  const imageText = formatImageReference(image);
  const namespace = jobNamespace(buildNamespace, config);
  const jobName = jobNameFor(build, namespace, imageText);
  const target: JobTarget = { build, namespace, image, artifact, jobName };
  const observed: Observed = {
    ...known,
    image: imageText,
    artifactUri: build.spec.artifactUri,
    timeoutSeconds: timeoutSeconds(build, config),
    memoryLimit: buildResources(build, config).limits.memory ?? "none",
    job: { namespace, name: target.jobName },
    namespace: buildNamespace,
    maxConcurrentBuilds: config.maxConcurrentBuilds,
  };
  return { observed, wiring, target, secretArgs: {} };
}

/**
 * The build slots held (by the backend's runs, and the runs granted one that it does not show yet)
 * and the builds waiting for one, `target`'s build and run aside.
 */
function slotUsage(
  backend: BuildBackend,
  target: JobTarget,
  reservations: SlotReservations,
  context: ReconcileContext,
): SlotUsage {
  const { build } = target;
  const waiting = context.cache
    .list<ImageBuild>(types.imageBuild)
    .filter((other) => other.metadata.uid !== build.metadata.uid && queuedBuild(other))
    .map((other) => other.metadata.namespace ?? "");
  const holdings = backend.slotHolders(context);
  const reserved = reservations.pending(new Set(holdings.map((h) => h.run)), backend.runOf(target));
  return {
    held: countPerNamespace([...holdings.map((h) => h.namespace), ...reserved]),
    waiting: countPerNamespace(waiting),
  };
}

/** `pendingMs`: the run's outcome is not fully visible yet; look again after that long. */
export type Decided = { decision: Decision & { kind: "act" } } | { pendingMs: number };

const pendingPollMs = 1_000;

/**
 * Asks `decide` until it acts, looking up each observation it asks for. A decision that takes a
 * build slot reserves it before anything else runs (execute.ts releases it if the run does not start).
 */
export async function decideObserving(
  observation: BuildObservation,
  reservations: SlotReservations,
  context: ReconcileContext,
): Promise<Decided> {
  if ("blocked" in observation) return { decision: actOn(decide(observation.blocked)) };
  const { observed, wiring, target } = observation;
  const { access, backend } = wiring;
  for (;;) {
    const decision = decide(observed);
    if (decision.kind === "act") {
      if (decision.claimsSlot) reservations.reserve(backend.runOf(target), observed.namespace);
      return { decision };
    }
    if (decision.what === "registry")
      observed.registry = await access.checkImage(context.client, target.namespace, target.image);
    else if (decision.what === "artifact")
      observed.artifact = await access.checkArtifact(context.client, target.namespace, target.artifact);
    else if (decision.what === "slots") observed.slots = slotUsage(backend, target, reservations, context);
    else if (decision.what === "buildArgs") {
      const read: SecretArgs = await backend.secretArgs(target, context);
      if ("values" in read) observation.secretArgs = read.values;
      observed.buildArgs = "values" in read ? { result: "ok" } : { result: "invalid", message: read.invalid };
    } else {
      const { run, pending } = await backend.observe(target, context);
      if (pending) return { pendingMs: pendingPollMs };
      observed.observedJob = run;
    }
  }
}

function actOn(decision: Decision): Decision & { kind: "act" } {
  if (decision.kind !== "act") throw new Error(`a blocked build cannot observe ${decision.what}`);
  return decision;
}
