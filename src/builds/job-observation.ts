/** What a build Job and its pods say about the run: pure, from the cached objects. */
import type { V1Job, V1Pod } from "@kubernetes/client-node";
import { artifactLimitExitCode } from "./artifact-limits.ts";
import { fetcherContainer } from "./build-job.ts";
import type { JobObservation } from "./decide.ts";

function conditionTrue(job: V1Job, ...types: string[]) {
  return job.status?.conditions?.find((c) => types.includes(c.type) && c.status === "True");
}

/** The terminated state of the most recently finished failing container of the Job's pods. */
function lastTermination(pods: V1Pod[]) {
  const terminations = pods.flatMap((pod) =>
    [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].flatMap(
      (status) => {
        const terminated = status.state?.terminated ?? status.lastState?.terminated;
        return terminated && terminated.exitCode !== 0 ? [{ container: status.name, ...terminated }] : [];
      },
    ),
  );
  const time = (t: { finishedAt?: Date | string }) => (t.finishedAt ? new Date(t.finishedAt).getTime() : 0);
  return terminations.sort((a, b) => time(b) - time(a))[0];
}

/**
 * `pending` is true when the Job failed but its pods' termination is not in the cache yet (watches
 * of different kinds are not ordered): the caller waits a moment rather than report no message.
 * `pods` undefined: the pods cannot be seen (a Job read directly in a namespace the operator does
 * not watch): the Job's own failure message is all there is. `owned`: the build looking started it.
 */
export function observeJob(
  job: V1Job | undefined,
  pods: V1Pod[] | undefined,
  owned = true,
): { run: JobObservation; pending: boolean } {
  if (!job) return { run: { state: "absent" }, pending: false };
  // The Job controller counts a terminated pod in `failed` only once it has removed the pod's
  // tracking finalizer; until then the pod is listed in uncountedTerminatedPods.
  const failedPods = (job.status?.failed ?? 0) + (job.status?.uncountedTerminatedPods?.failed?.length ?? 0);
  if (conditionTrue(job, "Complete", "SuccessCriteriaMet")) {
    return {
      run: { state: "succeeded", attempts: failedPods + (job.status?.succeeded ?? 1) },
      pending: false,
    };
  }
  const failed = conditionTrue(job, "Failed", "FailureTarget");
  if (!failed) {
    const attempts = failedPods + (job.status?.active ?? 0);
    return { run: { state: "running", attempts, ...(owned ? {} : { joined: true }) }, pending: false };
  }
  if (failed.reason === "DeadlineExceeded") {
    return {
      run: {
        state: "failed",
        attempts: failedPods,
        reason: "DeadlineExceeded",
        message: failed.message ?? "",
      },
      pending: false,
    };
  }
  const ownPods = (pods ?? []).filter((pod) =>
    pod.metadata?.ownerReferences?.some((o) => o.uid === job.metadata?.uid),
  );
  const termination = lastTermination(ownPods);
  if (!termination) {
    return {
      run: { state: "failed", attempts: failedPods, reason: "Error", message: failed.message ?? "" },
      pending: pods !== undefined,
    };
  }
  const detail = termination.message?.trim() || termination.reason || `exit code ${termination.exitCode}`;
  if (termination.container === fetcherContainer && termination.exitCode === artifactLimitExitCode)
    return {
      run: { state: "failed", attempts: failedPods, reason: "ArtifactTooLarge", message: detail },
      pending: false,
    };
  return {
    run: {
      state: "failed",
      attempts: failedPods,
      reason: termination.reason === "OOMKilled" ? "OOMKilled" : "Error",
      message: `${termination.container}: ${detail}`,
    },
    pending: false,
  };
}
