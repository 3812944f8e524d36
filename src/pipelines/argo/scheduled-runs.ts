/**
 * The Workflows an Argo CronWorkflow starts (labelled with its name by Argo's controller). A finished
 * one whose completion the RunSchedule recorded is marked with the annotation below (a partial
 * server-side apply of that one field) and never reported again; the CronWorkflow keeps
 * `scheduledHistoryLimit` finished Workflows of each outcome, so one is missed only if more than that
 * many finish while the operator is not running.
 */
import type { Client, KubeObject } from "../../kube/types.ts";
import type { ScheduledCompletion, ScheduledRuns } from "../events/scheduled.ts";
import { types } from "../types.ts";
import { type ArgoWorkflowStatus, runCompletion } from "./completion.ts";

export const recordedAnnotation = "pipelines.slipway.dev/completion-recorded";

/** successfulJobsHistoryLimit and failedJobsHistoryLimit of every CronWorkflow (Argo's defaults: 3 and 1). */
export const scheduledHistoryLimit = 50;

/** The label Argo puts on every Workflow a CronWorkflow starts. */
const cronWorkflowLabel = "workflows.argoproj.io/cron-workflow";

type Workflow = KubeObject & { status?: ArgoWorkflowStatus };

export function argoScheduledRuns(client: Client): ScheduledRuns {
  return {
    // `since` is not needed: a marked Workflow is skipped, and the CronWorkflow's history limits bound the list
    async completed(provider, scheduleId, wanted) {
      const workflows = await client.list<Workflow>(types.workflow, {
        namespace: provider.key.namespace,
        labelSelector: `${cronWorkflowLabel}=${scheduleId}`,
      });
      return workflows.flatMap((workflow): ScheduledCompletion[] => {
        if (workflow.metadata?.annotations?.[recordedAnnotation]) return [];
        const completion = runCompletion(workflow.status, wanted.artifacts, wanted.pipelineRootStorage);
        return completion ? [{ ...completion, runId: workflow.metadata?.name ?? "" }] : [];
      });
    },
    async release(provider, runId) {
      await client.apply({
        apiVersion: `${types.workflow.group}/${types.workflow.version}`,
        kind: types.workflow.kind,
        metadata: {
          name: runId,
          namespace: provider.key.namespace,
          annotations: { [recordedAnnotation]: "true" },
        },
      });
    },
  };
}
