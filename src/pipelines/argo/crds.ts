/**
 * The workflow engine's CRDs as the release installs them: Argo Workflows' "minimal" CRDs (the
 * ones Argo's own install uses), written here rather than copied: every kind Argo's controller
 * serves, with names, scope and version, and a schema that keeps whatever fields an object has.
 */

const group = "argoproj.io";

interface ArgoKind {
  kind: string;
  plural: string;
  shortNames: string[];
  scope: "Namespaced" | "Cluster";
  /** Argo's controller writes these kinds' status through the status subresource. */
  statusSubresource?: boolean;
}

/** Every kind of the Argo Workflows API (group argoproj.io, version v1alpha1). */
export const argoKinds: readonly ArgoKind[] = [
  {
    kind: "ClusterWorkflowTemplate",
    plural: "clusterworkflowtemplates",
    shortNames: ["clusterwftmpl", "cwft"],
    scope: "Cluster",
  },
  { kind: "CronWorkflow", plural: "cronworkflows", shortNames: ["cwf", "cronwf"], scope: "Namespaced" },
  {
    kind: "WorkflowArtifactGCTask",
    plural: "workflowartifactgctasks",
    shortNames: ["wfat"],
    scope: "Namespaced",
    statusSubresource: true,
  },
  {
    kind: "WorkflowEventBinding",
    plural: "workfloweventbindings",
    shortNames: ["wfeb"],
    scope: "Namespaced",
  },
  { kind: "Workflow", plural: "workflows", shortNames: ["wf"], scope: "Namespaced" },
  { kind: "WorkflowTaskResult", plural: "workflowtaskresults", shortNames: [], scope: "Namespaced" },
  {
    kind: "WorkflowTaskSet",
    plural: "workflowtasksets",
    shortNames: ["wfts"],
    scope: "Namespaced",
    statusSubresource: true,
  },
  { kind: "WorkflowTemplate", plural: "workflowtemplates", shortNames: ["wftmpl"], scope: "Namespaced" },
];

/** The schema of a minimal CRD: the type fields, and any other field kept as it is. */
const keepEverything = {
  type: "object",
  properties: {
    apiVersion: { type: "string" },
    kind: { type: "string" },
    metadata: { type: "object" },
  },
  "x-kubernetes-preserve-unknown-fields": true,
};

export interface ArgoCrd {
  apiVersion: "apiextensions.k8s.io/v1";
  kind: "CustomResourceDefinition";
  metadata: { name: string; labels: Record<string, string> };
  spec: Record<string, unknown>;
  [field: string]: unknown;
}

/** Argo Workflows' minimal CRDs, labelled with the Argo version they are for and `labels`. */
export function argoMinimalCrds(argoVersion: string, labels: Record<string, string> = {}): ArgoCrd[] {
  return argoKinds.map((kind) => ({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name: `${kind.plural}.${group}`,
      labels: {
        ...labels,
        "app.kubernetes.io/component": "workflow-engine",
        "slipway.dev/argo-version": argoVersion,
      },
    },
    spec: {
      group,
      names: {
        kind: kind.kind,
        listKind: `${kind.kind}List`,
        plural: kind.plural,
        singular: kind.kind.toLowerCase(),
        ...(kind.shortNames.length ? { shortNames: kind.shortNames } : {}),
      },
      scope: kind.scope,
      versions: [
        {
          name: "v1alpha1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: keepEverything },
          ...(kind.statusSubresource ? { subresources: { status: {} } } : {}),
        },
      ],
    },
  }));
}

type Schema = { properties?: Record<string, Schema> };

/** Whether a schema describes an object's fields beyond its type and metadata (as Argo's full CRDs do). */
function describesFields(schema: Schema | undefined): boolean {
  return Object.entries(schema?.properties ?? {}).some(
    ([name, field]) =>
      !["apiVersion", "kind", "metadata"].includes(name) &&
      (!["spec", "status"].includes(name) || field.properties !== undefined),
  );
}

/**
 * Whether the workflow engine's CRD `existing` may be written (or removed) by an install: it is
 * absent, or schema-less like ours and Argo's minimal ones. One with Argo's full schemas came from
 * Argo's own install and validates better than ours, so it stays.
 */
export function replaceableEngineCrd(existing: object | undefined): boolean {
  const versions = (
    existing as { spec?: { versions?: { schema?: { openAPIV3Schema?: Schema } }[] } } | undefined
  )?.spec?.versions;
  return !versions?.some((version) => describesFields(version.schema?.openAPIV3Schema));
}

export const isEngineCrd = (crd: object) => (crd as { spec?: { group?: string } }).spec?.group === group;
