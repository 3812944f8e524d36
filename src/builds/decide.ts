/**
 * What to do next for one ImageBuild: a pure function of what has been observed so far. It asks for
 * an observation (registry, artifact, build run) when it needs one, so the I/O layer only looks up
 * what the decision depends on, and returns the final effects once it has enough.
 */
import type { ImageBuildPhase, ImageBuildStatus } from "../apis/builds/imagebuild.ts";

export type RegistryCheck =
  | { result: "exists"; digest: string }
  | { result: "missing" }
  | { result: "rejected"; message: string }
  | { result: "unavailable"; message: string };

export type ArtifactCheck =
  | { result: "exists" }
  | { result: "missing" }
  | { result: "denied"; message: string }
  | { result: "unconfigured" }
  | { result: "unavailable"; message: string };

/** The Job (or local build) of this build's image reference. */
export type RunObservation =
  | { state: "absent" }
  | { state: "running"; attempts: number }
  | { state: "succeeded"; attempts: number; finishedAt?: string }
  | {
      state: "failed";
      attempts: number;
      reason: "OOMKilled" | "DeadlineExceeded" | "Error";
      message: string;
    };

export interface Observed {
  generation: number;
  status: ImageBuildStatus | undefined;
  now: Date;
  /** The rendered image reference, or why it cannot be rendered. */
  reference: { image: string } | { error: string };
  artifactUri: string;
  timeoutSeconds: number;
  /** Memory limit of the build container, named when it is OOM-killed. */
  memoryLimit: string;
  jobName: string;
  /** Builds of this operator running now, and how many may. */
  runningBuilds: number;
  maxConcurrentBuilds: number;
  registry?: RegistryCheck;
  artifact?: ArtifactCheck;
  run?: RunObservation;
}

export type FailureReason =
  | "InvalidImageName"
  | "CredentialsRejected"
  | "RegistryUnavailable"
  | "NoBlobStore"
  | "ArtifactMissing"
  | "ArtifactAccessDenied"
  | "OOMKilled"
  | "Timeout"
  | "BuildFailed"
  | "ImageNotPushed";

export interface StatusEvent {
  type: "Normal" | "Warning";
  reason: string;
  message: string;
}

export type Decision =
  | { kind: "observe"; what: "registry" | "artifact" | "run" }
  | {
      kind: "act";
      /** Delete the Job / stop the local build of this reference. */
      deleteRun?: boolean;
      /** Create the Job / start the local build (and join it as an owner). */
      startRun?: boolean;
      status?: ImageBuildStatus;
      event?: StatusEvent;
      requeueAfterMs?: number;
    };

const done: Decision = { kind: "act" };
const pollMs = 10_000;
const waitForSlotMs = 15_000;
const artifactRetryMs = 30_000;
/** How long after a run succeeded the pushed image may take to show in the registry (replication, caches). */
export const pushVisibleWithinSeconds = 60;
const pushPollMs = 2_000;

function isTerminal(phase: ImageBuildPhase | undefined): boolean {
  return phase === "Succeeded" || phase === "Failed";
}

/** The condition `Succeeded` mirrors the phase: Unknown while pending/building, then True or False. */
function nextStatus(
  o: Observed,
  phase: ImageBuildPhase,
  reason: string,
  message: string,
  fields: Partial<ImageBuildStatus>,
): ImageBuildStatus {
  const previous = o.status?.conditions?.find((c) => c.type === "Succeeded");
  const conditionStatus = phase === "Succeeded" ? "True" : phase === "Failed" ? "False" : "Unknown";
  const now = o.now.toISOString();
  const unchanged = previous?.status === conditionStatus && previous.reason === reason;
  const status: ImageBuildStatus = {
    phase,
    ...("image" in o.reference ? { image: o.reference.image } : {}),
    ...(o.status?.startedAt ? { startedAt: o.status.startedAt } : {}),
    ...(o.status?.jobName ? { jobName: o.status.jobName } : {}),
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
  o: Observed,
  reason: FailureReason,
  message: string,
  extra: Partial<Decision & { kind: "act" }> = {},
) {
  return {
    kind: "act" as const,
    ...extra,
    status: nextStatus(o, "Failed", reason, message, {}),
    event: { type: "Warning" as const, reason, message },
  };
}

function inFlight(o: Observed): boolean {
  return o.status?.phase === "Building" && o.status.observedGeneration === o.generation;
}

function elapsedSeconds(o: Observed): number {
  const started = o.status?.startedAt ? Date.parse(o.status.startedAt) : o.now.getTime();
  return (o.now.getTime() - started) / 1000;
}

function timeoutMessage(o: Observed): string {
  return `build of ${"image" in o.reference ? o.reference.image : "the image"} exceeded its timeout of ${o.timeoutSeconds}s; its Job was deleted`;
}

/** A build that was Building: follow its run. Undefined when the run has gone and the build starts over. */
function followRun(o: Observed): Decision | undefined {
  if (!o.run) return { kind: "observe", what: "run" };
  const run = o.run;
  switch (run.state) {
    case "absent":
      return undefined;
    case "running": {
      if (elapsedSeconds(o) >= o.timeoutSeconds)
        return fail(o, "Timeout", timeoutMessage(o), { deleteRun: true });
      const remainingMs = (o.timeoutSeconds - elapsedSeconds(o)) * 1000;
      const status = nextStatus(o, "Building", "Building", `building ${imageOf(o)}`, {
        attempts: run.attempts,
      });
      return {
        kind: "act",
        status,
        requeueAfterMs: Math.max(1000, Math.min(pollMs, Math.ceil(remainingMs))),
      };
    }
    case "failed":
      if (run.reason === "DeadlineExceeded")
        return fail(o, "Timeout", timeoutMessage(o), { deleteRun: true });
      if (run.reason === "OOMKilled") {
        return fail(
          o,
          "OOMKilled",
          `build container was OOMKilled at its memory limit of ${o.memoryLimit} (after ${run.attempts} attempts); raise spec.resources.limits.memory`,
        );
      }
      return fail(
        o,
        "BuildFailed",
        `build failed after ${run.attempts} attempts: ${run.message || "no termination message"}`,
      );
    case "succeeded": {
      if (!o.registry) return { kind: "observe", what: "registry" };
      const registry = o.registry;
      if (registry.result === "exists") {
        const status = nextStatus(o, "Succeeded", "Built", `built and pushed ${imageOf(o)}`, {
          digest: registry.digest,
          reused: false,
          attempts: run.attempts,
        });
        return {
          kind: "act",
          status,
          event: { type: "Normal", reason: "Built", message: `pushed ${imageOf(o)}` },
        };
      }
      if (registry.result === "missing") {
        const finished = run.finishedAt ? Date.parse(run.finishedAt) : o.now.getTime();
        if ((o.now.getTime() - finished) / 1000 < pushVisibleWithinSeconds) {
          const message = `the build finished; waiting for ${imageOf(o)} to appear in the registry`;
          const status = nextStatus(o, "Building", "WaitingForPush", message, { attempts: run.attempts });
          return { kind: "act", status, requeueAfterMs: pushPollMs };
        }
        return fail(
          o,
          "ImageNotPushed",
          `the build finished but ${imageOf(o)} is not in the registry ${pushVisibleWithinSeconds}s later`,
        );
      }
      return registryFailure(o, registry);
    }
  }
}

function imageOf(o: Observed): string {
  return "image" in o.reference ? o.reference.image : "";
}

function registryFailure(o: Observed, check: RegistryCheck & { message: string }): Decision {
  if (check.result === "rejected") {
    return fail(
      o,
      "CredentialsRejected",
      `registry credentials rejected for ${imageOf(o)}: ${check.message}`,
    );
  }
  return fail(o, "RegistryUnavailable", `registry unavailable for ${imageOf(o)}: ${check.message}`);
}

/** A build that has not started (or restarts): existence check first, then the artifact, then a run. */
function start(o: Observed, wasBuilding: boolean): Decision {
  if (!o.registry) return { kind: "observe", what: "registry" };
  const registry = o.registry;
  if (registry.result === "exists") {
    const reused = !wasBuilding;
    const message = reused ? `${imageOf(o)} already exists; nothing built` : `built and pushed ${imageOf(o)}`;
    const status = nextStatus(o, "Succeeded", reused ? "Reused" : "Built", message, {
      digest: registry.digest,
      reused,
    });
    return { kind: "act", status, event: { type: "Normal", reason: reused ? "Reused" : "Built", message } };
  }
  if (registry.result !== "missing") return registryFailure(o, registry);
  if (!o.artifact) return { kind: "observe", what: "artifact" };
  const artifact = o.artifact;
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
    case "unavailable": {
      const status = nextStatus(
        o,
        "Pending",
        "ArtifactUnavailable",
        `cannot check ${o.artifactUri} yet: ${artifact.message}`,
        {},
      );
      return { kind: "act", status, requeueAfterMs: artifactRetryMs };
    }
    case "exists":
      break;
  }
  if (!o.run) return { kind: "observe", what: "run" };
  const run = o.run;
  if (run.state === "succeeded" || run.state === "failed") {
    // A finished run of this reference whose image is not in the registry (an earlier failure, or a
    // push since deleted): remove it so a fresh one starts.
    const status = nextStatus(
      o,
      "Pending",
      "Restarting",
      `removing the finished Job ${o.jobName} to build again`,
      {},
    );
    return { kind: "act", deleteRun: true, status, requeueAfterMs: 1000 };
  }
  const building = (attempts: number) =>
    nextStatus(o, "Building", "Building", `building ${imageOf(o)}`, {
      jobName: o.jobName,
      attempts,
      startedAt: o.now.toISOString(),
      reused: false,
    });
  if (run.state === "running") {
    return {
      kind: "act",
      startRun: true, // joins the shared run as an owner
      status: building(run.attempts),
      event: {
        type: "Normal",
        reason: "BuildJoined",
        message: `joined the running build ${o.jobName} of ${imageOf(o)}`,
      },
      requeueAfterMs: pollMs,
    };
  }
  if (o.runningBuilds >= o.maxConcurrentBuilds) {
    const message = `waiting: ${o.runningBuilds} builds running (maxConcurrentBuilds ${o.maxConcurrentBuilds})`;
    return {
      kind: "act",
      status: nextStatus(o, "Pending", "Queued", message, {}),
      requeueAfterMs: waitForSlotMs,
    };
  }
  return {
    kind: "act",
    startRun: true,
    status: building(0),
    event: { type: "Normal", reason: "BuildStarted", message: `building ${imageOf(o)} in ${o.jobName}` },
    requeueAfterMs: Math.min(pollMs, o.timeoutSeconds * 1000),
  };
}

export function decide(o: Observed): Decision {
  if (isTerminal(o.status?.phase) && o.status?.observedGeneration === o.generation) return done;
  if ("error" in o.reference) return fail(o, "InvalidImageName", o.reference.error);
  const wasBuilding = inFlight(o);
  if (wasBuilding) {
    const followed = followRun(o);
    if (followed) return followed;
  }
  return start(o, wasBuilding);
}
