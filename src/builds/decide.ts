/**
 * What to do next for one ImageBuild: a pure function of what has been observed so far. It asks for
 * an observation (registry, artifact, build run) when it needs one, so the I/O layer only looks up
 * what the decision depends on, and returns the final effects once it has enough.
 */
import type { ImageBuildPhase, ImageBuildStatus } from "../apis/builds/imagebuild.ts";
import type { StatusEvent } from "../kube/status-writer.ts";
import { claimSlot, queuedReason, type SlotUsage } from "./build-slots.ts";

export type RegistryCheck =
  | { result: "exists"; digest: string }
  | { result: "missing" }
  | { result: "rejected"; message: string }
  | { result: "unavailable"; message: string };

export type ArtifactCheck =
  | { result: "exists" }
  | { result: "missing" }
  | { result: "denied"; message: string }
  /** More objects or bytes than artifacts.maxObjects / maxBytes allow. */
  | { result: "tooLarge"; message: string }
  | { result: "unconfigured" }
  | { result: "unavailable"; message: string };

/** The Job (or local build) of this build's image reference. */
export type JobObservation =
  | { state: "absent" }
  /** `joined`: another build (of the same namespace) started it; this one follows it and never deletes it. */
  | { state: "running"; attempts: number; joined?: boolean }
  | { state: "succeeded"; attempts: number; finishedAt?: string }
  | {
      state: "failed";
      attempts: number;
      /** Rejected: the API server refused to create the run's Job (a permanent 4xx). */
      /** NoCredential: the run's own registry credential could not be minted (registry.scopedCredentials). */
      /** ArtifactTooLarge: the fetch stopped at artifacts.maxBytes / maxObjects. */
      reason: "OOMKilled" | "DeadlineExceeded" | "Error" | "Rejected" | "NoCredential" | "ArtifactTooLarge";
      message: string;
    };

/** The Job of this build's image reference (for the local backend: the name its run is known by). */
export interface JobRef {
  namespace: string;
  name: string;
}

/** A secret build argument a run reads from a Secret: all present, or the first one missing. */
export type BuildArgsCheck = { result: "ok" } | { result: "invalid"; message: string };

/** What is known of every build, even one that cannot be attempted. */
interface BuildFacts {
  generation: number;
  status: ImageBuildStatus | undefined;
  now: Date;
}

/**
 * Why a build cannot be attempted at all: no configuration, a bad override, an image reference the
 * naming template cannot render or the namespace may not push, an artifact URI it cannot read.
 */
export type BlockerReason =
  | "NotConfigured"
  | "InvalidOverride"
  | "InvalidImageName"
  | "ImageNotAllowed"
  | "InvalidDockerfile"
  | "InvalidArtifactUri"
  | "ResourcesNotAllowed";

export interface Blocked extends BuildFacts {
  blocker: { reason: BlockerReason; message: string };
}

export interface Observed extends BuildFacts {
  /** The rendered image reference. */
  image: string;
  artifactUri: string;
  timeoutSeconds: number;
  /** Memory limit of the build container, named when it is OOM-killed. */
  memoryLimit: string;
  job: JobRef;
  /** The ImageBuild's namespace: whose build slots it counts in. */
  namespace: string;
  maxConcurrentBuilds: number;
  registry?: RegistryCheck;
  artifact?: ArtifactCheck;
  observedJob?: JobObservation;
  /** Who holds the build slots, and who waits: asked for only when a run is to start. */
  slots?: SlotUsage;
  /** Asked for just before a run starts. */
  buildArgs?: BuildArgsCheck;
}

export type FailureReason =
  | "InvalidImageName"
  | "CredentialsRejected"
  | "RegistryUnavailable"
  | "NoBlobStore"
  | "ArtifactMissing"
  | "ArtifactAccessDenied"
  | "ArtifactTooLarge"
  | "OOMKilled"
  | "Timeout"
  | "BuildFailed"
  | "ImageNotPushed"
  | "JobRejected"
  | BlockerReason
  | "InvalidBuildArgument";

export type Decision =
  | { kind: "observe"; what: "registry" | "artifact" | "job" | "slots" | "buildArgs" }
  | {
      kind: "act";
      /** Delete the Job / stop the local build of this reference. */
      deleteJob?: boolean;
      /** Create the Job / start the local build (and join it as an owner). */
      startJob?: boolean;
      /** The run to start takes a build slot (a new run, not one joined). */
      claimsSlot?: boolean;
      status?: ImageBuildStatus;
      event?: StatusEvent;
      requeueAfterMs?: number;
    };

const done: Decision = { kind: "act" };
/** A build may follow a Job it does not own (joined), whose events do not reach it: poll while building. */
const buildingPollMs = 3_000;
const waitForSlotMs = 15_000;
const artifactRetryMs = 30_000;
/** How long after a run succeeded the pushed image may take to show in the registry (replication, caches). */
export const pushVisibleWithinSeconds = 60;
const pushPollMs = 2_000;

type ActDecision = Decision & { kind: "act" };

function isTerminal(phase: ImageBuildPhase | undefined): boolean {
  return phase === "Succeeded" || phase === "Failed";
}

/** The condition `Succeeded`, which mirrors the phase. */
export function succeededCondition(status: ImageBuildStatus | undefined) {
  return status?.conditions?.find((c) => c.type === "Succeeded");
}

/**
 * A build the namespace's override ConfigMap failed: looked at again whenever the ConfigMap changes,
 * and started over once it is valid.
 */
export function failedForOverride(status: ImageBuildStatus | undefined): boolean {
  return status?.phase === "Failed" && succeededCondition(status)?.reason === "InvalidOverride";
}

/** The condition `Succeeded` mirrors the phase: Unknown while pending/building, then True or False. */
function nextStatus(
  o: BuildFacts & { image?: string },
  phase: ImageBuildPhase,
  reason: string,
  message: string,
  fields: Partial<ImageBuildStatus>,
): ImageBuildStatus {
  const previous = succeededCondition(o.status);
  const conditionStatus = phase === "Succeeded" ? "True" : phase === "Failed" ? "False" : "Unknown";
  const now = o.now.toISOString();
  const unchanged = previous?.status === conditionStatus && previous.reason === reason;
  const status: ImageBuildStatus = {
    phase,
    ...(o.image ? { image: o.image } : {}),
    ...(o.status?.startedAt ? { startedAt: o.status.startedAt } : {}),
    ...(o.status?.job ? { job: o.status.job } : {}),
    ...(o.status?.attempts !== undefined ? { attempts: o.status.attempts } : {}),
    ...fields,
    message,
    observedGeneration: o.generation,
    conditions: [
      {
        type: "Succeeded",
        status: conditionStatus,
        reason,
        message,
        observedGeneration: o.generation,
        lastTransitionTime: unchanged && previous ? previous.lastTransitionTime : now,
      },
    ],
  };
  if (isTerminal(phase)) status.completedAt = now;
  return status;
}

function fail(
  o: BuildFacts & { image?: string },
  reason: FailureReason,
  message: string,
  extra: Partial<ActDecision> = {},
): ActDecision {
  return {
    kind: "act",
    ...extra,
    status: nextStatus(o, "Failed", reason, message, {}),
    event: { type: "Warning", reason, message },
  };
}

/** A blocker is looked at again on every change of what it depends on: the same failure is reported once. */
function failOnce(o: Blocked): Decision {
  const { reason, message } = o.blocker;
  const condition = succeededCondition(o.status);
  const same =
    o.status?.phase === "Failed" &&
    o.status.observedGeneration === o.generation &&
    condition?.reason === reason &&
    condition.message === message;
  return same ? done : fail(o, reason, message);
}

function inFlight(o: Observed): boolean {
  return o.status?.phase === "Building" && o.status.observedGeneration === o.generation;
}

function elapsedSeconds(o: Observed): number {
  const started = o.status?.startedAt ? Date.parse(o.status.startedAt) : o.now.getTime();
  return (o.now.getTime() - started) / 1000;
}

function timeoutMessage(o: Observed, joined = false): string {
  const job = joined ? "the Job it joined (another build's) is left running" : "its Job was deleted";
  return `build of ${o.image} exceeded its timeout of ${o.timeoutSeconds}s; ${job}`;
}

function jobFailure(o: Observed, run: JobObservation & { state: "failed" }): ActDecision {
  if (run.reason === "DeadlineExceeded") return fail(o, "Timeout", timeoutMessage(o), { deleteJob: true });
  if (run.reason === "Rejected")
    return fail(o, "JobRejected", `the API server refused the build's Job ${o.job.name}: ${run.message}`);
  if (run.reason === "NoCredential")
    return fail(
      o,
      "CredentialsRejected",
      `no registry credential for the build's Job ${o.job.name}: ${run.message}`,
    );
  if (run.reason === "ArtifactTooLarge") return fail(o, "ArtifactTooLarge", run.message);
  if (run.reason === "OOMKilled")
    return fail(
      o,
      "OOMKilled",
      `build container was OOMKilled at its memory limit of ${o.memoryLimit} (after ${run.attempts} attempts); raise spec.resources.limits.memory`,
    );
  return fail(
    o,
    "BuildFailed",
    `build failed after ${run.attempts} attempts: ${run.message || "no termination message"}`,
  );
}

/** A run that succeeded: its image should be in the registry, perhaps after a moment. */
function jobSucceeded(o: Observed, run: JobObservation & { state: "succeeded" }): Decision {
  if (!o.registry) return { kind: "observe", what: "registry" };
  const registry = o.registry;
  if (registry.result === "exists") {
    const status = nextStatus(o, "Succeeded", "Built", `built and pushed ${o.image}`, {
      digest: registry.digest,
      reused: false,
      attempts: run.attempts,
    });
    return {
      kind: "act",
      status,
      event: { type: "Normal", reason: "Built", message: `pushed ${o.image}` },
    };
  }
  if (registry.result !== "missing") return registryFailure(o, registry);
  const finished = run.finishedAt ? Date.parse(run.finishedAt) : o.now.getTime();
  if ((o.now.getTime() - finished) / 1000 < pushVisibleWithinSeconds) {
    const message = `the build finished; waiting for ${o.image} to appear in the registry`;
    const status = nextStatus(o, "Building", "WaitingForPush", message, { attempts: run.attempts });
    return { kind: "act", status, requeueAfterMs: pushPollMs };
  }
  return fail(
    o,
    "ImageNotPushed",
    `the build finished but ${o.image} is not in the registry ${pushVisibleWithinSeconds}s later`,
  );
}

/** A build that was Building: follow its run. Undefined when the run has gone and the build starts over. */
function followJob(o: Observed): Decision | undefined {
  if (!o.observedJob) return { kind: "observe", what: "job" };
  const run = o.observedJob;
  switch (run.state) {
    case "absent":
      return undefined;
    case "running": {
      if (elapsedSeconds(o) >= o.timeoutSeconds)
        return fail(o, "Timeout", timeoutMessage(o, run.joined), run.joined ? {} : { deleteJob: true });
      const remainingMs = (o.timeoutSeconds - elapsedSeconds(o)) * 1000;
      const status = nextStatus(o, "Building", "Building", `building ${o.image}`, {
        job: o.job,
        attempts: run.attempts,
      });
      return {
        kind: "act",
        status,
        requeueAfterMs: Math.max(1000, Math.min(buildingPollMs, Math.ceil(remainingMs))),
      };
    }
    case "failed":
      return jobFailure(o, run);
    case "succeeded":
      return jobSucceeded(o, run);
  }
}

function registryFailure(o: Observed, check: RegistryCheck & { message: string }): ActDecision {
  if (check.result === "rejected") {
    return fail(o, "CredentialsRejected", `registry credentials rejected for ${o.image}: ${check.message}`);
  }
  return fail(o, "RegistryUnavailable", `registry unavailable for ${o.image}: ${check.message}`);
}

/**
 * The image exists: reused when no run of this build made it. A reuse does nothing in the cluster, so
 * its status (condition reason Reused) is its only record — no Event: a reused build costs one
 * registry HEAD and one status write.
 */
function exists(o: Observed, digest: string, wasBuilding: boolean): ActDecision {
  if (!wasBuilding) {
    const message = `${o.image} already exists; nothing built`;
    return { kind: "act", status: nextStatus(o, "Succeeded", "Reused", message, { digest, reused: true }) };
  }
  const message = `built and pushed ${o.image}`;
  const status = nextStatus(o, "Succeeded", "Built", message, { digest, reused: false });
  return { kind: "act", status, event: { type: "Normal", reason: "Built", message } };
}

/** What the artifact check says against a build; undefined when the artifact is there. */
function artifactProblem(o: Observed, artifact: ArtifactCheck): ActDecision | undefined {
  switch (artifact.result) {
    case "unconfigured":
      return fail(
        o,
        "NoBlobStore",
        `no blob store is configured (storage.type s3 or gcs) to read ${o.artifactUri}`,
      );
    case "missing":
      return fail(o, "ArtifactMissing", `artifact ${o.artifactUri} not found: no object under that prefix`);
    case "denied":
      return fail(
        o,
        "ArtifactAccessDenied",
        `access to artifact ${o.artifactUri} denied: ${artifact.message}`,
      );
    case "tooLarge":
      return fail(o, "ArtifactTooLarge", artifact.message);
    case "unavailable": {
      const message = `cannot check ${o.artifactUri} yet: ${artifact.message}`;
      const status = nextStatus(o, "Pending", "ArtifactUnavailable", message, {});
      return { kind: "act", status, requeueAfterMs: artifactRetryMs };
    }
    case "exists":
      return undefined;
  }
}

function building(o: Observed, attempts: number): ImageBuildStatus {
  return nextStatus(o, "Building", "Building", `building ${o.image}`, {
    job: o.job,
    attempts,
    startedAt: o.now.toISOString(),
    reused: false,
  });
}

/** Registry and artifact checked: join the run of this reference, replace a finished one, or start one. */
function launch(o: Observed, run: JobObservation): Decision {
  if (run.state === "succeeded" || run.state === "failed") {
    // A finished run of this reference whose image is not in the registry (an earlier failure, or a
    // push since deleted): remove it so a fresh one starts.
    const message = `removing the finished Job ${o.job.name} to build again`;
    const status = nextStatus(o, "Pending", "Restarting", message, {});
    return { kind: "act", deleteJob: true, status, requeueAfterMs: 1000 };
  }
  if (run.state === "running") {
    const message = `joined the running build ${o.job.name} of ${o.image}`;
    return {
      kind: "act",
      startJob: true, // joins the shared run as an owner
      status: building(o, run.attempts),
      event: { type: "Normal", reason: "BuildJoined", message },
      requeueAfterMs: buildingPollMs,
    };
  }
  if (!o.buildArgs) return { kind: "observe", what: "buildArgs" };
  if (o.buildArgs.result === "invalid") return fail(o, "InvalidBuildArgument", o.buildArgs.message);
  // the slots last: nothing is awaited between counting them and taking one (slot-reservations.ts)
  if (!o.slots) return { kind: "observe", what: "slots" };
  const slot = claimSlot(o.slots, o.namespace, o.maxConcurrentBuilds);
  if (!slot.granted)
    return {
      kind: "act",
      status: nextStatus(o, "Pending", queuedReason, slot.message, {}),
      requeueAfterMs: waitForSlotMs,
    };
  return {
    kind: "act",
    startJob: true,
    claimsSlot: true,
    status: building(o, 0),
    event: { type: "Normal", reason: "BuildStarted", message: `building ${o.image} in ${o.job.name}` },
    requeueAfterMs: Math.min(buildingPollMs, o.timeoutSeconds * 1000),
  };
}

/** A build that has not started (or restarts): existence check first, then the artifact, then a run. */
function start(o: Observed, wasBuilding: boolean): Decision {
  if (!o.registry) return { kind: "observe", what: "registry" };
  if (o.registry.result === "exists") return exists(o, o.registry.digest, wasBuilding);
  if (o.registry.result !== "missing") return registryFailure(o, o.registry);
  if (!o.artifact) return { kind: "observe", what: "artifact" };
  const problem = artifactProblem(o, o.artifact);
  if (problem) return problem;
  if (!o.observedJob) return { kind: "observe", what: "job" };
  return launch(o, o.observedJob);
}

/**
 * Every transition of an ImageBuild. A build finished for this generation stays as it is, except one
 * the override failed (it starts over once the override is valid); a blocked build fails, once.
 */
export function decide(o: Observed | Blocked): Decision {
  const retry = failedForOverride(o.status);
  if (isTerminal(o.status?.phase) && o.status?.observedGeneration === o.generation && !retry) return done;
  if ("blocker" in o) return failOnce(o);
  const current = retry ? { ...o, status: undefined } : o;
  const wasBuilding = inFlight(current);
  if (wasBuilding) {
    const followed = followJob(current);
    if (followed) return followed;
  }
  return start(current, wasBuilding);
}
