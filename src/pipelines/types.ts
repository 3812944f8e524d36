import type { Kind } from "../apis/kind.ts";
import {
  ExperimentKind,
  PipelineKind,
  ProviderKind,
  RunConfigurationKind,
  RunKind,
  RunScheduleKind,
} from "../apis/pipelines/index.ts";
import type { ResourceType } from "../kube/types.ts";

function typeOf(kind: Kind): ResourceType {
  return { group: kind.group, version: kind.version, kind: kind.kind, plural: kind.plural, namespaced: true };
}

export const providerType = typeOf(ProviderKind);
export const pipelineType = typeOf(PipelineKind);
export const experimentType = typeOf(ExperimentKind);
export const runType = typeOf(RunKind);
export const runScheduleType = typeOf(RunScheduleKind);
export const runConfigurationType = typeOf(RunConfigurationKind);

const argo = (kind: string, plural: string): ResourceType => ({
  group: "argoproj.io",
  version: "v1alpha1",
  kind,
  plural,
  namespaced: true,
});
export const workflowTemplateType = argo("WorkflowTemplate", "workflowtemplates");
export const workflowType = argo("Workflow", "workflows");
export const cronWorkflowType = argo("CronWorkflow", "cronworkflows");

export const finalizer = "pipelines.slipway.dev/backend";
