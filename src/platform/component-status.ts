/**
 * A Component's phase from what Kubernetes reports about its workload, pods, Service endpoints and
 * Ingress (pure).
 */
import type { V1Deployment, V1Pod, V1StatefulSet } from "@kubernetes/client-node";
import type { ComponentPhase } from "../apis/platform/component.ts";
import { gateMessage } from "./component-gate.ts";
import { annotations } from "./component-objects.ts";
import { terminationExcerpt } from "./termination-excerpt.ts";

export interface WorkloadView {
  /** The Component generation the workload was rendered from (annotation). */
  renderedFrom?: number;
  generation?: number;
  replicas: number;
  status: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    currentRevision?: string;
    updateRevision?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

/** What the verdict reads of a Deployment or StatefulSet. */
export function workloadView(workload: V1Deployment | V1StatefulSet): WorkloadView {
  const renderedFrom = Number(workload.metadata?.annotations?.[annotations.renderedFrom]);
  const status = workload.status;
  return {
    ...(Number.isFinite(renderedFrom) ? { renderedFrom } : {}),
    ...(workload.metadata?.generation !== undefined ? { generation: workload.metadata.generation } : {}),
    replicas: workload.spec?.replicas ?? 1,
    status: {
      observedGeneration: status?.observedGeneration,
      replicas: status?.replicas,
      updatedReplicas: status?.updatedReplicas,
      readyReplicas: status?.readyReplicas,
      availableReplicas: status?.availableReplicas,
      ...("currentRevision" in (status ?? {})
        ? {
            currentRevision: (status as V1StatefulSet["status"])?.currentRevision,
            updateRevision: (status as V1StatefulSet["status"])?.updateRevision,
          }
        : {}),
      conditions: status?.conditions,
    },
  };
}

export interface ComponentObservation {
  generation: number;
  stopped: boolean;
  replicas: number;
  version: string;
  previous: { phase?: ComponentPhase; version?: string };
  workload?: WorkloadView;
  pods: readonly V1Pod[];
  /** The pod template's hash annotation value: only pods carrying it can fail the current rollout. */
  templateHash?: string;
  /** Whether the component has a Service whose endpoints must be ready. */
  hasService: boolean;
  readyEndpoints: number;
  /** Only set where an ingress controller exists to give the Ingress an address. */
  ingress?: { hasAddress: boolean };
  /** The components the workload's change waits for (see component-gate.ts); the workload was left as it was. */
  waitingFor?: readonly string[];
  /** The workload is being deleted to be created anew (immutable-fields.ts): what is happening. */
  recreating?: string;
  /** A StatefulSet's progress deadline, which the verdict enforces (rolloutStalled); a Deployment reports its own. */
  statefulSetProgress?: RolloutProgress;
}

export interface RolloutProgress {
  deadlineSeconds: number;
  /** When the controller last changed the workload (status.rolloutStartedAt). */
  rolloutStartedAt?: string;
  now: number;
}

/** Milliseconds of a timestamp as the cache holds it (a string) or client-node types it (a Date). */
const millis = (time: Date | string | undefined): number =>
  time === undefined ? Number.NaN : new Date(time).getTime();

/**
 * Kubernetes gives a StatefulSet no progress deadline (no Progressing condition), so a rollout stuck on
 * a pod that never starts would be Updating forever. The rule of a Deployment's
 * progressDeadlineSeconds, applied to it: the rollout has failed once nothing progressed for the
 * deadline; progress is its start (the controller's last change of the workload), a current pod
 * created, or one becoming Ready.
 */
export function rolloutStalled(currentPods: readonly V1Pod[], progress: RolloutProgress): boolean {
  const marks = [
    millis(progress.rolloutStartedAt),
    ...currentPods.flatMap((pod) => [
      millis(pod.metadata?.creationTimestamp),
      millis(
        pod.status?.conditions?.find((c) => c.type === "Ready" && c.status === "True")?.lastTransitionTime,
      ),
    ]),
  ].filter(Number.isFinite);
  return marks.length > 0 && progress.now - Math.max(...marks) > progress.deadlineSeconds * 1000;
}

export interface ComponentVerdict {
  phase: ComponentPhase;
  message: string;
  replicas: number;
  readyReplicas: number;
  /** status.version: the release whose rollout last completed. */
  version?: string;
}

const failingWaitReasons = new Set([
  "CrashLoopBackOff",
  "ImagePullBackOff",
  "ErrImagePull",
  "InvalidImageName",
  "CreateContainerConfigError",
  "CreateContainerError",
  "RunContainerError",
]);

/** What a crashed container last said, as "; last exit code N: <excerpt>" (termination-excerpt.ts). */
export function lastExitSuffix(terminated: { exitCode?: number; message?: string } | undefined): string {
  const text = terminationExcerpt(terminated?.message);
  return text ? `; last exit code ${terminated?.exitCode ?? "?"}: ${text}` : "";
}

/** The first pod problem that retrying will not fix on its own, as "pod NAME: REASON: message". */
export function podFailure(pods: readonly V1Pod[]): string | undefined {
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    const name = pod.metadata?.name ?? "?";
    if (pod.status?.phase === "Failed") {
      const terminated = pod.status.containerStatuses?.find((c) => c.state?.terminated)?.state?.terminated;
      const reason = terminated?.reason ?? pod.status.reason ?? "Failed";
      const detail = terminated?.message ? terminationExcerpt(terminated.message) : pod.status.message;
      return `pod ${name}: ${reason}${terminated?.exitCode !== undefined ? ` (exit code ${terminated.exitCode})` : ""}${detail ? `: ${detail}` : ""}`;
    }
    for (const container of pod.status?.containerStatuses ?? []) {
      const waiting = container.state?.waiting;
      if (waiting?.reason && failingWaitReasons.has(waiting.reason)) {
        const restarts = container.restartCount ? ` (restarted ${container.restartCount} times)` : "";
        const last = lastExitSuffix(container.lastState?.terminated);
        return `pod ${name}: ${waiting.reason}${restarts}${waiting.message ? `: ${waiting.message}` : ""}${last}`;
      }
    }
  }
  return undefined;
}

export function componentVerdict(input: ComponentObservation): ComponentVerdict {
  const workload = input.workload;
  const livePods = input.pods.filter((p) => !p.metadata?.deletionTimestamp);
  const readyReplicas = workload?.status.readyReplicas ?? 0;
  const replicas = input.stopped ? 0 : input.replicas;
  const verdict = (
    phase: ComponentPhase,
    message: string,
    version = input.previous.version,
  ): ComponentVerdict => ({
    phase,
    message,
    replicas,
    readyReplicas,
    ...(version ? { version } : {}),
  });

  if (input.waitingFor?.length) return verdict("Pending", gateMessage(input.stopped, input.waitingFor));
  if (input.stopped) {
    const running = Math.max(workload?.status.replicas ?? 0, livePods.length);
    if (workload && workload.renderedFrom === input.generation && running === 0)
      return verdict("Stopped", "stopped");
    if (!workload) return verdict("Stopped", "stopped");
    return verdict("Stopping", `${running} pod(s) still running`);
  }
  const wasRunning =
    input.previous.version !== undefined ||
    input.previous.phase === "Ready" ||
    input.previous.phase === "Updating";
  if (input.recreating) return verdict(wasRunning ? "Updating" : "Deploying", input.recreating);
  if (!workload) return verdict("Pending", "workload not created yet");

  const unfinished = rolloutUnfinished(input.generation, workload);
  const notReady =
    unfinished ??
    (input.hasService && input.readyEndpoints === 0 ? "Service has no ready endpoints" : undefined) ??
    (input.ingress && !input.ingress.hasAddress ? "Ingress has no address yet" : undefined);
  if (!notReady) return verdict("Ready", `${readyReplicas}/${replicas} ready`, input.version);
  // Only a rollout that cannot complete is a failure: a failed pod already replaced by a Ready one is not.
  const currentPods = input.templateHash
    ? livePods.filter((p) => p.metadata?.annotations?.[annotations.templateHash] === input.templateHash)
    : livePods;
  const failure = podFailure(currentPods);
  if (failure) return verdict("Failed", failure);
  const deadline = workload.status.conditions?.find(
    (c) => c.type === "Progressing" && c.status === "False" && c.reason === "ProgressDeadlineExceeded",
  );
  if (deadline)
    return verdict("Failed", `rollout exceeded its progress deadline: ${deadline.message ?? ""}`.trim());
  const progress = input.statefulSetProgress;
  if (progress && rolloutStalled(currentPods, progress))
    return verdict(
      "Failed",
      `rollout exceeded its progress deadline: no progress for ${progress.deadlineSeconds} s (progressDeadlineSeconds): ${notReady}`,
    );
  return verdict(wasRunning ? "Updating" : "Deploying", notReady);
}

/** Why the workload's rollout of the current Component generation is not complete, or undefined if it is. */
export function rolloutUnfinished(componentGeneration: number, workload: WorkloadView): string | undefined {
  if (workload.renderedFrom !== componentGeneration) return "workload not yet updated";
  return workloadRolloutUnfinished(workload);
}

/** Why the workload's rollout of its own current generation is not complete, or undefined if it is. */
export function workloadRolloutUnfinished(workload: Omit<WorkloadView, "renderedFrom">): string | undefined {
  const s = workload.status;
  const want = workload.replicas;
  if ((s.observedGeneration ?? 0) < (workload.generation ?? 0)) return "rollout not yet observed";
  if ((s.updatedReplicas ?? 0) < want) return `${s.updatedReplicas ?? 0}/${want} pods updated`;
  if ((s.replicas ?? 0) > want) return `${(s.replicas ?? 0) - want} old pod(s) still terminating`;
  if (s.updateRevision !== undefined && s.currentRevision !== s.updateRevision) return "rollout in progress";
  const available = s.availableReplicas ?? s.readyReplicas ?? 0;
  if (available < want) return `${available}/${want} pods available`;
  return undefined;
}
