/**
 * Where an argo Run's step ran (pure): Argo's controller labels each pod of a Workflow
 * `workflows.argoproj.io/workflow=<workflow>` and annotates it `workflows.argoproj.io/node-name` with
 * its node's name, `<workflow>.<task>` for a DAG task and `<workflow>.<task>(<attempt>)` for each
 * attempt of a task with a retryStrategy; the step's own process is the pod's `main` container
 * (argo-workflows v4, workflow/common/common.go: LabelKeyWorkflow, AnnotationKeyNodeName,
 * MainContainerName).
 */

export const workflowPodLabel = "workflows.argoproj.io/workflow";
const nodeNameAnnotation = "workflows.argoproj.io/node-name";
export const stepContainer = "main";

interface PodView {
  metadata?: { annotations?: Record<string, string> };
}

/** The attempt a pod ran for `step` of `workflow` (0 without retries), or undefined when it ran another node. */
function attemptOf(pod: PodView, workflow: string, step: string): number | undefined {
  const node = pod.metadata?.annotations?.[nodeNameAnnotation];
  const task = `${workflow}.${step}`;
  if (node === task) return 0;
  const attempt = node?.startsWith(`${task}(`) ? node.slice(task.length + 1, -1) : undefined;
  return attempt !== undefined && node?.endsWith(")") && /^\d+$/.test(attempt) ? Number(attempt) : undefined;
}

/** The pod of the step's last attempt among the Workflow's pods; undefined when none ran it. */
export function stepPod<P extends PodView>(
  pods: readonly P[],
  workflow: string,
  step: string,
): P | undefined {
  return pods
    .flatMap((pod) => {
      const attempt = attemptOf(pod, workflow, step);
      return attempt === undefined ? [] : [{ pod, attempt }];
    })
    .sort((a, b) => b.attempt - a.attempt)[0]?.pod;
}
