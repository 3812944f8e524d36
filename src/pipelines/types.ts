import { resourceTypeOf } from "../apis/kind.ts";
import {
  ExperimentKind,
  PipelineKind,
  ProviderKind,
  RunConfigurationKind,
  RunKind,
  RunScheduleKind,
} from "../apis/pipelines/index.ts";
import type { ResourceType } from "../kube/types.ts";

export const providerType = resourceTypeOf(ProviderKind);
export const pipelineType = resourceTypeOf(PipelineKind);
export const experimentType = resourceTypeOf(ExperimentKind);
export const runType = resourceTypeOf(RunKind);
export const runScheduleType = resourceTypeOf(RunScheduleKind);
export const runConfigurationType = resourceTypeOf(RunConfigurationKind);

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
