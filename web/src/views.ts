/** What the REST routes answer about the resources the pages show (their JSON, as the UI reads it). */

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface ResourceView<Spec, Status> {
  name: string;
  namespace: string;
  createdAt?: string;
  spec: Spec;
  status?: Status;
}

export interface BuildArg {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef: { name: string; key: string } };
}

export interface BuildSpec {
  project: string;
  name: string;
  version: string;
  artifactUri: string;
  buildArgs?: BuildArg[];
}

export interface BuildStatus {
  phase?: string;
  image?: string;
  digest?: string;
  reused?: boolean;
  job?: { namespace: string; name: string };
  attempts?: number;
  startedAt?: string;
  completedAt?: string;
  message?: string;
  conditions?: Condition[];
}
export type BuildView = ResourceView<BuildSpec, BuildStatus>;

/** The status every pipeline resource shares. */
export interface SyncStatus {
  provider?: { name: string; id?: string };
  state?: string;
  version?: string;
  failedAttempts?: number;
  conditions?: Condition[];
}

export interface PipelineStep {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  dependsOn?: string[];
  inputs?: {
    parameters?: { name: string; from: { step?: string; output?: string; parameter?: string } }[];
    artifacts?: { name: string; from: { step: string; output: string } }[];
  };
}

export interface PipelineSpec {
  provider: string;
  image?: string;
  steps: PipelineStep[];
  parameters?: { name: string; default?: string }[];
}
export type PipelineView = ResourceView<PipelineSpec, SyncStatus>;

export interface HistoryView {
  current: { version?: string; state?: string };
  entries: { at?: string; state: string; version?: string; message: string; warning: boolean }[];
  eventsVisible: boolean;
}

export interface RunSpec {
  provider: string;
  pipeline: string;
  experimentName?: string;
  parameters?: { name: string; value?: string; valueFrom?: unknown }[];
  artifacts?: { name: string; path: string }[];
}

export interface RunStatus extends SyncStatus {
  completionState?: "Succeeded" | "Failed";
  completedAt?: string;
  artifacts?: { name: string; location: string }[];
  /** Each step from the backend's own record (Run status.steps). */
  steps?: RunStepView[];
  /** A failed run: the failing step and its reason. */
  failure?: string;
}
export interface RunStepView {
  name: string;
  phase: "Pending" | "Running" | "Succeeded" | "Failed" | "Skipped";
  startedAt?: string;
  finishedAt?: string;
  retries?: number;
  exitCode?: number;
  message?: string;
  /** Whether the step reused an earlier execution, as the backend says (absent: not said). */
  cacheHit?: boolean;
}
export type RunView = ResourceView<RunSpec, RunStatus>;

export interface ProviderSpec {
  type: string;
  allowedNamespaces?: string[];
}
export type ProviderView = ResourceView<ProviderSpec, { conditions?: Condition[] }> & {
  usedBy: { kind: string; name: string }[];
};

export interface NamespaceAccess {
  name: string;
  resources: string[];
}
