/**
 * What a pipeline backend does, whatever runs it: `argo` (src/pipelines/argo/), `kfp`
 * (src/pipelines/kfp/) and `vertex` (src/pipelines/vertex/), each registered by one line in backends.ts.
 */
import type { Static } from "@sinclair/typebox";
import type { CachePolicy } from "../apis/pipelines/caching.ts";
import type { ConcurrencyPolicy, NamedValue, OutputArtifact, Schedule } from "../apis/pipelines/common.ts";
import type { Pipeline } from "../apis/pipelines/pipeline.ts";
import type { Provider } from "../apis/pipelines/provider.ts";
import type { RunStep } from "../apis/pipelines/run.ts";
import type { Cache, Client, KubeObject, ObjectKey, Permission, ResourceType } from "../kube/types.ts";
import type { ScheduledRuns } from "./events/scheduled.ts";

export interface ProviderConfig {
  key: Required<ObjectKey>;
  spec: Provider["spec"];
  /** Version of the spec (src/pipelines/version.ts). */
  version: string;
}

/**
 * The Provider a delete or a completion poll goes to: its key, and its configuration while the
 * Provider exists (a backend that talks to a remote API needs its endpoint and credentials).
 */
export interface ProviderAt {
  key: Required<ObjectKey>;
  config?: ProviderConfig;
}

/** The resource a backend object is made for (its owner). */
export interface Owner {
  object: KubeObject;
  kind: string;
  namespace: string;
  name: string;
}

export interface PipelineDefinition {
  owner: Owner;
  name: string;
  version: string;
  spec: Pipeline["spec"];
}

export interface ExperimentDefinition {
  owner: Owner;
  description?: string;
}

export interface RunDefinition {
  owner: Owner;
  pipeline: PipelineDefinition;
  experimentName?: string;
  /** The Experiment `experimentName` names, when it exists (a backend with experiments needs its id). */
  experiment?: KubeObject;
  /** Resolved: every value is known. */
  parameters: Static<typeof NamedValue>[];
  artifacts: Static<typeof OutputArtifact>[];
  /** The Run's caching policy, over its steps', its Pipeline's and its Provider's (src/pipelines/caching.ts). */
  caching?: CachePolicy;
}

export interface RunScheduleDefinition extends RunDefinition {
  schedule: Static<typeof Schedule>;
  /** What a due run does while earlier ones still go (Forbid when the schedule does not say). */
  concurrencyPolicy: ConcurrencyPolicy;
  /** At most this many runs at once: 1 under Forbid and Replace; under Allow as set, or undefined (the backend's most). */
  maxConcurrency: number | undefined;
  /** Start the runs missed while the scheduler was down or over maxConcurrency (false when not said). */
  catchUp: boolean;
  /** A missed run due longer ago than this is not started (catch-up unbounded when undefined). */
  startingDeadlineSeconds: number | undefined;
}

export interface ArtifactLocation {
  name: string;
  location: string;
}

export type RunStepStatus = Static<typeof RunStep>;

export interface RunCompletion {
  state: "Succeeded" | "Failed";
  startedAt?: string;
  finishedAt?: string;
  artifacts: ArtifactLocation[];
  /** Each step as the backend recorded it (a backend that reports none leaves it out). */
  steps?: RunStepStatus[];
  /** A failed run: the failing step and its reason, in one line. */
  failure?: string;
}

/**
 * A run still going, and its steps as far as the backend has recorded them. `watched`: the answer
 * came from a cache that announces the run's next change (BackendPlugin.runWatch), so nothing polls.
 */
export interface RunProgress {
  state: "Running";
  steps: RunStepStatus[];
  watched?: boolean;
}

/**
 * What a completion read looks for: the Run's output artifacts, the Provider's pipeline root, and
 * the pipeline's step names (a backend whose record holds other tasks, e.g. KFP's root DAG, reports
 * only these as steps).
 */
export interface RunWanted {
  artifacts: Static<typeof OutputArtifact>[];
  pipelineRootStorage?: string;
  steps?: readonly string[];
}

/** CRUD of one kind of backend object; `id` is what create returned. */
export interface BackendObjects<Definition> {
  create(provider: ProviderConfig, definition: Definition): Promise<string>;
  /** Returns the id, which may differ when the backend can only re-create. */
  update(provider: ProviderConfig, id: string, definition: Definition): Promise<string>;
  /** Deleting what does not exist is not an error. */
  delete(provider: ProviderAt, id: string): Promise<void>;
}

/**
 * Whether the backend answered with this configuration (a Provider's Ready condition); the message
 * names the endpoint and, when not ready, the field or the error.
 */
export interface BackendReadiness {
  ready: boolean;
  message: string;
}

export interface Backend {
  readiness(provider: ProviderConfig): Promise<BackendReadiness>;
  /** Whether deleting a resource in `namespace` must clean up explicitly (a finalizer), or owner references suffice. */
  needsFinalizer(namespace: string, provider: Required<ObjectKey>): boolean;
  pipelines: BackendObjects<PipelineDefinition>;
  experiments: BackendObjects<ExperimentDefinition>;
  runSchedules: BackendObjects<RunScheduleDefinition>;
  runs: BackendObjects<RunDefinition> & {
    /**
     * The run's outcome once it has finished (polled); while it runs, its steps so far (RunProgress),
     * or undefined from a backend that reports no steps.
     */
    completion(
      provider: ProviderAt,
      id: string,
      wanted: RunWanted,
    ): Promise<RunCompletion | RunProgress | undefined>;
  };
}

/** One backend as the operator registers it: how to make it, and what it touches (the controllers' RBAC). */
export interface BackendPlugin {
  /** `cache`: the operator's, holding `runWatch.type` where the API server serves it. */
  create(client: Client, cache?: Cache): Backend;
  /**
   * The backend's record of a run, cached and watched (an optional watch: the operator starts where
   * the backend is not installed): a change of one enqueues the Run `runOf` names.
   */
  runWatch?: { type: ResourceType; runOf(object: KubeObject): ObjectKey | undefined };
  /** The kinds it writes for each pipeline kind. */
  writes: Record<"pipeline" | "experiment" | "run" | "runSchedule", ResourceType[]>;
  /** What readiness() reads. */
  readinessPermissions: Permission[];
  /** What every call (readiness included) needs besides `writes`: e.g. reading a credential Secret. */
  callPermissions?: Permission[];
  /** The runs its schedules start, held until their completion is recorded (src/pipelines/events/scheduled.ts). */
  scheduledRuns?: { create(client: Client): ScheduledRuns; permissions: Permission[] };
}

/** Provider type (`spec.type`) → its backend. The accepted provider types are exactly its keys. */
export type BackendRegistry = Readonly<Record<string, BackendPlugin>>;
