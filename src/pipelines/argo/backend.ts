/**
 * The argo backend: Pipeline → WorkflowTemplate, Run → Workflow, RunSchedule → CronWorkflow, all in
 * the Provider's namespace. Argo has no experiments: an Experiment is a label on its runs' Workflows.
 */
import { crdName } from "../../apis/kind.ts";
import { configMapType } from "../../kube/core-types.ts";
import { ownerReference } from "../../kube/owners.ts";
import { isConflict } from "../../kube/rest.ts";
import type { Cache, Client, KubeObject, ObjectKey, ResourceType } from "../../kube/types.ts";
import type {
  Backend,
  BackendObjects,
  BackendPlugin,
  BackendReadiness,
  Owner,
  PipelineDefinition,
  ProviderConfig,
  RunCompletion,
  RunDefinition,
  RunScheduleDefinition,
} from "../backend.ts";
import { parseOutboundList } from "../outbound-policy.ts";
import { types } from "../types.ts";
import { type ArgoWorkflowStatus, runObservation } from "./completion.ts";
import { argoCachingProblem } from "./memoize.ts";
import { argoName, labels, ownerOf } from "./names.ts";
import { cacheHits, withReusedRuns } from "./reused-runs.ts";
import { runWorkflowOwnerProblem } from "./run-workflow-owner.ts";
import { argoScheduledRuns } from "./scheduled-runs.ts";
import { argoPipelineProblem, cronWorkflow, workflow, workflowTemplate } from "./workflow.ts";
import {
  type DeploymentView,
  workflowControllerOf,
  workflowControllerReadiness,
} from "./workflow-controllers.ts";

/** Argo's cron takes 5 fields or a descriptor; a 6-field (seconds) expression is refused with this message. */
export function argoCronProblem(expression: string): string | undefined {
  if (expression.startsWith("@")) return undefined;
  const fields = expression.trim().split(/\s+/).length;
  return fields === 5
    ? undefined
    : `spec.schedule.cronExpression: the argo backend takes 5 cron fields (minute resolution), not ${fields}`;
}

/**
 * What a CronWorkflow cannot do of a schedule's policy (CronWorkflowSpec, argo-workflows v4): bound
 * the runs Allow starts, or catch up without a deadline (startingDeadlineSeconds unset starts no
 * missed run); the message names the field.
 */
export function argoSchedulePolicyProblem(definition: RunScheduleDefinition): string | undefined {
  if (definition.concurrencyPolicy === "Allow" && definition.maxConcurrency !== undefined)
    return `spec.maxConcurrency: the argo backend cannot bound the runs of concurrencyPolicy Allow (a CronWorkflow's Allow starts every due run): leave maxConcurrency unset, or use Forbid`;
  if (definition.catchUp && definition.startingDeadlineSeconds === undefined)
    return "spec.startingDeadlineSeconds: the argo backend catches up only within a deadline (a CronWorkflow's startingDeadlineSeconds): set it with catchUp";
  return undefined;
}

/** The Argo kinds the argo backend writes; the backend answers when the API server serves all of them. */
export const argoCrdNames = [types.workflowTemplate, types.workflow, types.cronWorkflow].map(crdName);

type Crd = KubeObject & { status?: { conditions?: { type: string; status: string }[] } };

/** How long one answer to "does the API server serve Argo's kinds" stands, for every Provider. */
export const argoKindsAnswerMs = 10_000;

/**
 * Whether the API server serves Argo's kinds: the same answer for every argo Provider of one
 * operator (one client), so it is read at most once per `argoKindsAnswerMs` (and once for callers
 * asking at the same time), not per Provider: each of Argo's CRDs is megabytes of schema, and 500 Providers re-examined after a
 * restart read them 1,500 times. A failed read is not remembered.
 */
export class ArgoKindsServed {
  readonly #now: () => number;
  #answer: { at: number; missing: string | undefined } | undefined;
  #reading: Promise<string | undefined> | undefined;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** The first of Argo's CRDs not Established, or undefined when all are served. */
  missing(client: Pick<Client, "get">): Promise<string | undefined> {
    const answer = this.#answer;
    if (answer && this.#now() - answer.at < argoKindsAnswerMs) return Promise.resolve(answer.missing);
    this.#reading ??= this.#read(client).finally(() => {
      this.#reading = undefined;
    });
    return this.#reading;
  }

  async #read(client: Pick<Client, "get">): Promise<string | undefined> {
    let missing: string | undefined;
    for (const name of argoCrdNames) {
      const crd = await client.get<Crd>(types.crd, { name });
      if (!crd?.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) {
        missing = name;
        break;
      }
    }
    this.#answer = { at: this.#now(), missing };
    return missing;
  }
}

/** The installer's setting: namespaces an Argo workflow controller installed outside them serves (`*`: all). */
export const argoNamespacesVariable = "SLIPWAY_ARGO_NAMESPACES";

export interface ArgoSettings {
  /** Namespaces an Argo workflow controller elsewhere serves (SLIPWAY_ARGO_NAMESPACES; `*`: a cluster-wide Argo). */
  servedNamespaces?: readonly string[];
}

/** The installer's settings from the operator's environment (an error naming the variable and a bad entry). */
export function argoSettingsFromEnvironment(env: NodeJS.ProcessEnv = process.env): ArgoSettings {
  return {
    servedNamespaces: parseOutboundList(argoNamespacesVariable, env[argoNamespacesVariable], "namespaces"),
  };
}

/**
 * The Workflows of Runs (not of schedules, whose runs scheduled-runs.ts follows), as the Run
 * controller caches and watches them: Argo's controller writes each node's progress in the status;
 * the spec (every step's template) is not kept.
 */
export const runWorkflows: ResourceType = {
  ...types.workflow,
  labelSelector: `${labels.kind}=Run`,
  cacheWithoutSpec: true,
};

/** The Run a Workflow was created for (its owner annotation). */
export const runOfWorkflow = (workflow: KubeObject): ObjectKey | undefined => ownerOf(workflow, "Run");

type WorkflowObject = KubeObject & { status?: ArgoWorkflowStatus };

/** Renders a definition's Argo object under its name. */
type Build<D> = (
  name: string,
  definition: D,
  provider: ProviderConfig,
) => { metadata: Record<string, unknown> };
/** What Argo could not do of a definition (a message naming the field), or undefined. */
type Check<D> = (definition: D, provider: ProviderConfig) => string | undefined;

export class ArgoBackend implements Backend {
  readonly #client: Client;
  readonly #cache: Cache | undefined;
  readonly #now: () => number;
  readonly #settings: ArgoSettings;
  readonly #served: ArgoKindsServed;

  /** `served`: the answer shared by every backend its plugin makes (argoBackendFor). */
  constructor(
    client: Client,
    options: { cache?: Cache; now?: () => number; settings?: ArgoSettings; served?: ArgoKindsServed } = {},
  ) {
    this.#client = client;
    this.#cache = options.cache;
    this.#now = options.now ?? Date.now;
    this.#settings = options.settings ?? {};
    this.#served = options.served ?? new ArgoKindsServed();
  }

  /**
   * The Run's Workflow from the cache when the cache holds its namespace (then the watch announces
   * the next change); else, or when the cache has not seen it yet (just created), a live read.
   */
  async #runWorkflow(key: Required<ObjectKey>): Promise<{ found?: WorkflowObject; watched: boolean }> {
    const watched = this.#cache?.holds(runWorkflows, key.namespace) ?? false;
    const cached = watched ? this.#cache?.get<WorkflowObject>(runWorkflows, key) : undefined;
    if (cached) return { found: cached, watched };
    return { found: await this.#client.get<WorkflowObject>(types.workflow, key), watched };
  }

  /**
   * A completed run's steps that hit the cache, with the Workflow each reused (reused-runs.ts): one
   * read of each cache ConfigMap, once the run completed; an entry gone or unreadable says nothing.
   */
  async #withReusedRuns(
    completion: RunCompletion,
    nodes: ArgoWorkflowStatus["nodes"],
    namespace: string,
  ): Promise<RunCompletion> {
    const steps = completion.steps ?? [];
    const hits = cacheHits(nodes, steps);
    if (!hits.length) return completion;
    const entries = new Map<string, Record<string, string> | undefined>();
    for (const name of new Set(hits.map((hit) => hit.cacheName))) {
      const configMap = await this.#client.get<KubeObject & { data?: Record<string, string> }>(
        configMapType,
        {
          namespace,
          name,
        },
      );
      entries.set(name, configMap?.data);
    }
    return { ...completion, steps: withReusedRuns(steps, hits, entries) };
  }

  /** Ready when Argo's kinds are served and a workflow controller serves the Provider's namespace. */
  async readiness(provider: ProviderConfig): Promise<BackendReadiness> {
    const missing = await this.#served.missing(this.#client);
    if (missing)
      return { ready: false, message: `the API server does not serve ${missing}: install Argo Workflows` };
    const namespace = provider.key.namespace;
    const declared = this.#settings.servedNamespaces ?? [];
    const deployments =
      declared.includes("*") || declared.includes(namespace)
        ? []
        : await this.#client.list<KubeObject & DeploymentView>(types.deployment, { namespace });
    const controllers = deployments.flatMap((d) => workflowControllerOf(d) ?? []);
    return workflowControllerReadiness(namespace, { controllers, declared }, argoNamespacesVariable);
  }

  /** In the resource's own namespace, owner references let the garbage collector clean up. */
  needsFinalizer(namespace: string, provider: Required<ObjectKey>): boolean {
    return namespace !== provider.namespace;
  }

  #withOwner<T extends { metadata: Record<string, unknown> }>(
    object: T,
    owner: Owner,
    provider: ProviderConfig,
  ): T {
    if (owner.namespace !== provider.key.namespace) return object;
    return { ...object, metadata: { ...object.metadata, ownerReferences: [ownerReference(owner.object)] } };
  }

  /** The Argo object of `definition` as it is written, under its name; a problem `check` finds is thrown. */
  #render<D extends { owner: Owner }>(
    build: Build<D>,
    check: Check<D>,
    provider: ProviderConfig,
    definition: D,
  ): { name: string; object: KubeObject } {
    const problem = check(definition, provider);
    if (problem) throw new Error(problem);
    const name = argoName(definition.owner);
    const object = this.#withOwner(build(name, definition, provider), definition.owner, provider);
    return { name, object: object as KubeObject };
  }

  #objects<D extends { owner: Owner }>(
    type: ResourceType,
    build: Build<D>,
    check: Check<D> = () => undefined,
  ): BackendObjects<D> {
    const apply = async (provider: ProviderConfig, definition: D) => {
      const { name, object } = this.#render(build, check, provider, definition);
      await this.#client.apply(object);
      return name;
    };
    return {
      create: apply,
      update: (provider, _id, definition) => apply(provider, definition),
      delete: (provider, id) => this.#client.delete(type, { namespace: provider.key.namespace, name: id }),
    };
  }

  readonly pipelines = this.#objects<PipelineDefinition>(
    types.workflowTemplate,
    workflowTemplate,
    argoPipelineProblem,
  );

  readonly experiments: Backend["experiments"] = {
    create: async (_provider, definition) => argoName(definition.owner),
    update: async (_provider, id) => id,
    delete: async () => {},
  };

  readonly runSchedules = this.#objects<RunScheduleDefinition>(
    types.cronWorkflow,
    (name, definition, provider) => cronWorkflow(name, definition, provider, this.#now()),
    (definition, provider) =>
      argoCronProblem(definition.schedule.cronExpression) ??
      argoSchedulePolicyProblem(definition) ??
      argoCachingProblem(definition, provider),
  );

  /**
   * A Run's Workflow is created (POST), not applied: a Run's spec is immutable and a Workflow runs
   * what it was created with, and server-side apply costs the API server a large Workflow's
   * managedFields and merge (#34). A create refused as AlreadyExists (a retry after a lost answer,
   * or an operator restarted after its POST) takes over the Workflow there only if it is the Run's
   * own (run-workflow-owner.ts); another's is neither adopted nor written to: the Run fails naming it.
   */
  async #createRunWorkflow(provider: ProviderConfig, definition: RunDefinition): Promise<string> {
    const { name, object } = this.#render(workflow, argoCachingProblem, provider, definition);
    try {
      await this.#client.create(object);
      return name;
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
    const live = await this.#client.get(types.workflow, { namespace: provider.key.namespace, name });
    const problem = live
      ? runWorkflowOwnerProblem(live, object)
      : `the Workflow ${provider.key.namespace}/${name} existed when this Run's was created and is gone now: the Run creates it on its next attempt`;
    if (problem) throw new Error(problem);
    return name;
  }

  readonly runs: Backend["runs"] = {
    create: (provider, definition) => this.#createRunWorkflow(provider, definition),
    // A Workflow runs what it was created with: an update (the Run's spec is immutable) changes nothing.
    update: async (_provider, id) => id,
    delete: (provider, id) =>
      this.#client.delete(types.workflow, { namespace: provider.key.namespace, name: id }),
    completion: async (provider, id, wanted) => {
      const { found, watched } = await this.#runWorkflow({ namespace: provider.key.namespace, name: id });
      if (!found) return { state: "Failed", artifacts: [], failure: `the Workflow ${id} is gone` }; // it will never finish
      // its steps come from the same read (Argo's node statuses)
      const observed = runObservation(found.status, wanted.artifacts, wanted.pipelineRootStorage);
      if (observed.state === "Running") return watched ? { ...observed, watched } : observed;
      return this.#withReusedRuns(observed, found.status?.nodes, provider.key.namespace);
    },
  };
}

export const argoBackendFor = (settings: ArgoSettings = {}): BackendPlugin => {
  // one answer per client (an operator's): another client's rights may differ
  const answers = new WeakMap<Client, ArgoKindsServed>();
  const servedFor = (client: Client) => {
    const served = answers.get(client) ?? new ArgoKindsServed();
    answers.set(client, served);
    return served;
  };
  return {
    create: (client, cache) => new ArgoBackend(client, { cache, settings, served: servedFor(client) }),
    runWatch: { type: runWorkflows, runOf: runOfWorkflow },
    writes: {
      pipeline: [types.workflowTemplate],
      experiment: [],
      run: [types.workflow],
      runSchedule: [types.cronWorkflow],
    },
    // the Deployments of the Provider's namespace: is a workflow controller serving it?
    readinessPermissions: [
      { type: types.crd, verbs: ["get"] },
      { type: types.deployment, verbs: ["list"] },
    ],
    // a completed run's cache hits: the entry in Argo's memoization ConfigMap names the run reused
    callPermissions: [{ type: configMapType, verbs: ["get"] }],
    scheduledRuns: {
      create: argoScheduledRuns,
      permissions: [{ type: types.workflow, verbs: ["list", "patch"] }],
    },
  };
};
