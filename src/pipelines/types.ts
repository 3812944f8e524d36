/** The resource types the pipelines controllers and the argo backend read and write. */
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

const argo = (kind: string, plural: string): ResourceType => ({
  group: "argoproj.io",
  version: "v1alpha1",
  kind,
  plural,
  namespaced: true,
});

export const types = {
  provider: resourceTypeOf(ProviderKind),
  pipeline: resourceTypeOf(PipelineKind),
  experiment: resourceTypeOf(ExperimentKind),
  run: resourceTypeOf(RunKind),
  runSchedule: resourceTypeOf(RunScheduleKind),
  runConfiguration: resourceTypeOf(RunConfigurationKind),
  workflowTemplate: argo("WorkflowTemplate", "workflowtemplates"),
  workflow: argo("Workflow", "workflows"),
  cronWorkflow: argo("CronWorkflow", "cronworkflows"),
  deployment: { group: "apps", version: "v1", kind: "Deployment", plural: "deployments", namespaced: true },
  crd: {
    group: "apiextensions.k8s.io",
    version: "v1",
    kind: "CustomResourceDefinition",
    plural: "customresourcedefinitions",
    namespaced: false,
  },
} satisfies Record<string, ResourceType>;

export const finalizer = "pipelines.slipway.dev/backend";
