/**
 * The kfp backend, on Kubeflow Pipelines' REST API v2beta1: Pipeline → a KFP pipeline with one
 * version per Slipway version (named by its hash, the IR as its spec), Experiment → experiment,
 * Run → run of that version, RunSchedule → recurring run. KFP's objects are not Kubernetes objects:
 * every resource gets the finalizer, and its deletion deletes them.
 */
import type { CachePolicy } from "../../apis/pipelines/caching.ts";
import type { Client } from "../../kube/types.ts";
import type {
  Backend,
  BackendPlugin,
  BackendReadiness,
  PipelineDefinition,
  ProviderAt,
  ProviderConfig,
} from "../backend.ts";
import { type OutboundPolicy, outboundPolicy } from "../outbound-policy.ts";
import { replaceSchedule } from "../replace-schedule.ts";
import { credentialPermissions } from "./auth.ts";
import { compilePipeline, runCompileError } from "./compile.ts";
import { type KfpRun, kfpRunObservation } from "./completion.ts";
import { type KfpConnection, kfpConnection, kfpConnectionAt } from "./connection.ts";
import { isKfpConflict, isKfpNotFound } from "./http.ts";
import {
  api,
  displayName,
  experimentBody,
  pipelineBody,
  recurringRunBody,
  runBody,
  versionBody,
  versionName,
  versionReference,
} from "./requests.ts";
import { kfpScheduledRuns } from "./scheduled-runs.ts";

/** KFP's list filter (V2beta1Filter) on one field's value. */
const byDisplayName = (value: string) =>
  JSON.stringify({ predicates: [{ key: "display_name", operation: "EQUALS", string_value: value }] });

const ignoreNotFound = (error: unknown) => {
  if (!isKfpNotFound(error)) throw error;
};

/** The IR of a Pipeline (with a Run's caching over its own), or an Error naming the field KFP cannot take. */
function irOf(definition: PipelineDefinition, provider: ProviderConfig, runCaching?: CachePolicy) {
  const compiled = compilePipeline({
    name: definition.name,
    spec: definition.spec,
    defaultBeamArgs: provider.spec.defaultBeamArgs,
    defaultCaching: provider.spec.defaultCaching,
    runCaching,
  });
  if (!compiled.ok)
    throw new Error(runCaching ? runCompileError(compiled, definition.name, runCaching) : compiled.error);
  return compiled.ir;
}

export class KfpBackend implements Backend {
  readonly #client: Client;
  readonly #outbound: OutboundPolicy;
  readonly #now: () => number;

  constructor(client: Client, outbound: OutboundPolicy, now: () => number = Date.now) {
    this.#client = client;
    this.#outbound = outbound;
    this.#now = now;
  }

  #connect(provider: ProviderConfig): KfpConnection {
    return kfpConnection(this.#client, provider, this.#outbound);
  }

  #at(provider: ProviderAt): KfpConnection {
    return kfpConnectionAt(this.#client, provider, this.#outbound);
  }

  /** An authenticated call (list one pipeline, in the namespace when multi-user): the answer is the readiness. */
  async readiness(provider: ProviderConfig): Promise<BackendReadiness> {
    try {
      const { http, settings } = this.#connect(provider);
      await http.request("GET", `${api}/pipelines`, {
        query: { page_size: "1", namespace: settings.namespace },
      });
      const where = settings.namespace ? ` (namespace ${settings.namespace})` : "";
      return { ready: true, message: `KFP at ${settings.endpoint} answered${where}` };
    } catch (error) {
      return { ready: false, message: error instanceof Error ? error.message : String(error) };
    }
  }

  needsFinalizer(): boolean {
    return true;
  }

  async #pipelineId({ http, settings }: KfpConnection, definition: PipelineDefinition): Promise<string> {
    const body = pipelineBody(definition, settings);
    try {
      return (await http.request<{ pipeline_id: string }>("POST", `${api}/pipelines`, { body })).pipeline_id;
    } catch (error) {
      if (!isKfpConflict(error)) throw error;
      const path = `${api}/pipelines/names/${encodeURIComponent(body.display_name)}`;
      const query = { namespace: settings.namespace };
      return (await http.request<{ pipeline_id: string }>("GET", path, { query })).pipeline_id;
    }
  }

  /** Uploads the version (or finds it: the same Slipway version uploaded before) and returns its id. */
  async #versionId(
    { http }: KfpConnection,
    pipelineId: string,
    definition: PipelineDefinition,
    ir: unknown,
    name: string,
  ) {
    const path = `${api}/pipelines/${encodeURIComponent(pipelineId)}/versions`;
    try {
      const body = versionBody(pipelineId, definition, ir, name);
      return (await http.request<{ pipeline_version_id: string }>("POST", path, { body }))
        .pipeline_version_id;
    } catch (error) {
      if (!isKfpConflict(error)) throw error;
      const query = { filter: byDisplayName(name), page_size: "1" };
      const listed = await http.request<{ pipeline_versions?: { pipeline_version_id: string }[] }>(
        "GET",
        path,
        {
          query,
        },
      );
      const found = listed.pipeline_versions?.[0]?.pipeline_version_id;
      if (!found) throw error;
      return found;
    }
  }

  async #upload(
    provider: ProviderConfig,
    definition: PipelineDefinition,
    pipelineId?: string,
  ): Promise<string> {
    const ir = irOf(definition, provider);
    const connection = this.#connect(provider);
    const id = pipelineId ?? (await this.#pipelineId(connection, definition));
    return `${id}/${await this.#versionId(connection, id, definition, ir, versionName(definition, provider))}`;
  }

  readonly pipelines: Backend["pipelines"] = {
    create: (provider, definition) => this.#upload(provider, definition),
    update: async (provider, id, definition) => {
      try {
        return await this.#upload(provider, definition, versionReference(id).pipeline_id);
      } catch (error) {
        if (!isKfpNotFound(error)) throw error;
        return this.#upload(provider, definition); // deleted in KFP meanwhile: created again
      }
    },
    delete: (provider, id) =>
      this.#at(provider)
        .http.request("DELETE", `${api}/pipelines/${encodeURIComponent(versionReference(id).pipeline_id)}`, {
          query: { cascade: "true" },
        })
        .then(() => {}, ignoreNotFound),
  };

  readonly experiments: Backend["experiments"] = {
    create: async (provider, definition) => {
      const { http, settings } = this.#connect(provider);
      const body = experimentBody(definition, settings);
      try {
        return (await http.request<{ experiment_id: string }>("POST", `${api}/experiments`, { body }))
          .experiment_id;
      } catch (error) {
        if (!isKfpConflict(error)) throw error;
        const query = { filter: byDisplayName(displayName(definition.owner)), namespace: settings.namespace };
        const listed = await http.request<{ experiments?: { experiment_id: string }[] }>(
          "GET",
          `${api}/experiments`,
          {
            query,
          },
        );
        const found = listed.experiments?.[0]?.experiment_id;
        if (!found) throw error;
        return found;
      }
    },
    // KFP cannot change an experiment (its description stays as created)
    update: async (_provider, id) => id,
    delete: (provider, id) => this.#delete(provider, `experiments/${encodeURIComponent(id)}`),
  };

  /** A POST with no body (`:disable`, `:enable`) of an object that may be gone. */
  #post(provider: ProviderAt, path: string): Promise<void> {
    return this.#at(provider)
      .http.request("POST", `${api}/${path}`)
      .then(() => {}, ignoreNotFound);
  }

  #delete(provider: ProviderAt, path: string): Promise<void> {
    return this.#at(provider)
      .http.request("DELETE", `${api}/${path}`)
      .then(() => {}, ignoreNotFound);
  }

  readonly runs: Backend["runs"] = {
    create: async (provider, definition) => {
      // KFP's API has no run-level caching switch: a Run that sets one runs its own IR (as the SDK's enable_caching)
      const inline = definition.caching ? irOf(definition.pipeline, provider, definition.caching) : undefined;
      const body = runBody(definition, provider, inline);
      return (await this.#connect(provider).http.request<{ run_id: string }>("POST", `${api}/runs`, { body }))
        .run_id;
    },
    // a run runs what it was created with: an update (the Run's spec is immutable) changes nothing
    update: async (_provider, id) => id,
    delete: (provider, id) => this.#delete(provider, `runs/${encodeURIComponent(id)}`),
    completion: async (provider, id, wanted) => {
      try {
        const run = await this.#at(provider).http.request<KfpRun>(
          "GET",
          `${api}/runs/${encodeURIComponent(id)}`,
        );
        return kfpRunObservation(run, wanted.artifacts, wanted.steps);
      } catch (error) {
        if (isKfpNotFound(error)) return { state: "Failed", artifacts: [] }; // deleted: it will never finish
        throw error;
      }
    },
  };

  readonly runSchedules: Backend["runSchedules"] = {
    create: async (provider, definition) => {
      const { http, settings } = this.#connect(provider);
      const body = recurringRunBody(definition, provider, settings, this.#now());
      return (await http.request<{ recurring_run_id: string }>("POST", `${api}/recurringruns`, { body }))
        .recurring_run_id;
    },
    // KFP cannot change a recurring run: it is replaced (src/pipelines/replace-schedule.ts), the
    // old one disabled meanwhile
    update: (provider, id, definition) =>
      replaceSchedule(
        {
          ...this.runSchedules,
          pause: (at, old) => this.#post(at, `recurringruns/${encodeURIComponent(old)}:disable`),
          resume: (at, old) => this.#post(at, `recurringruns/${encodeURIComponent(old)}:enable`),
        },
        provider,
        id,
        definition,
        "recurring run",
      ),
    delete: (provider, id) => this.#delete(provider, `recurringruns/${encodeURIComponent(id)}`),
  };
}

/** The kfp backend calling only the endpoints the operator's outbound policy lets through. */
export const kfpBackendFor = (outbound: OutboundPolicy): BackendPlugin => ({
  create: (client) => new KfpBackend(client, outbound),
  writes: { pipeline: [], experiment: [], run: [], runSchedule: [] },
  readinessPermissions: [],
  callPermissions: credentialPermissions,
  // its calls need only callPermissions
  scheduledRuns: { create: (client) => kfpScheduledRuns(client, outbound), permissions: [] },
});

/** Under the default policy (nothing allowed beyond it). */
export const kfpBackend: BackendPlugin = kfpBackendFor(outboundPolicy());
