/**
 * The vertex backend, with the official client @google-cloud/aiplatform (v1, gRPC): Run →
 * PipelineJob with the Pipeline's IR as its pipelineSpec, RunSchedule → Schedule, completion from
 * the job's state. Vertex keeps no pipeline registry and has no experiments of this kind: a
 * Pipeline is checked (compiled) only, an Experiment is a name. The client is loaded on the first
 * use of a vertex Provider (a dynamic import): the operator loads no cloud SDK at start.
 */

import { secretType } from "../../kube/core-types.ts";
import type { Client } from "../../kube/types.ts";
import { setNewest } from "../../lib/bounded-map.ts";
import type {
  Backend,
  BackendPlugin,
  BackendReadiness,
  ProviderAt,
  ProviderConfig,
  RunDefinition,
} from "../backend.ts";
import { compilePipeline } from "../kfp/compile.ts";
import { type OutboundPolicy, outboundPolicy } from "../outbound-policy.ts";
import {
  alreadyExists,
  type Clients,
  calling,
  grpcCode,
  ignoring,
  notFound,
  vertexClients,
  vertexClientsAt,
} from "./clients.ts";
import {
  pipelineJob,
  pipelineSpecKey,
  pipelineSpecOf,
  type Struct,
  schedule,
  scheduleUpdate,
  type VertexJob,
  vertexId,
  vertexRunObservation,
} from "./requests.ts";
import { vertexScheduledRuns } from "./scheduled-runs.ts";
import { locationName } from "./settings.ts";

/** Pipeline versions whose pipelineSpec a backend keeps (the oldest kept is dropped first). */
const keptPipelineSpecs = 64;

export class VertexBackend implements Backend {
  readonly #client: Client;
  readonly #outbound: OutboundPolicy;
  readonly #now: () => number;
  /** pipelineSpecKey → the job's pipelineSpec: compiled once per Pipeline version, not per Run. */
  readonly #pipelineSpecs = new Map<string, Struct>();

  constructor(client: Client, outbound: OutboundPolicy, now: () => number = Date.now) {
    this.#client = client;
    this.#outbound = outbound;
    this.#now = now;
  }

  #clients(provider: ProviderConfig): Promise<Clients> {
    return vertexClients(this.#client, provider, this.#outbound);
  }

  #at(provider: ProviderAt): Promise<Clients> {
    return vertexClientsAt(this.#client, provider, this.#outbound);
  }

  #pipelineSpec(run: RunDefinition, provider: ProviderConfig): Struct {
    const key = pipelineSpecKey(run, provider);
    const kept = this.#pipelineSpecs.get(key);
    if (kept) return kept;
    const spec = pipelineSpecOf(run, provider);
    setNewest(this.#pipelineSpecs, key, spec, keptPipelineSpecs);
    return spec;
  }

  /** A get of the Provider's location (with its credentials): the answer is the readiness. */
  async readiness(provider: ProviderConfig): Promise<BackendReadiness> {
    try {
      const clients = await this.#clients(provider);
      const name = locationName(clients.settings);
      await calling(clients, `GetLocation ${name}`, () => clients.pipelines.getLocation({ name }));
      return { ready: true, message: `Vertex AI at ${clients.settings.apiEndpoint} answered for ${name}` };
    } catch (error) {
      return { ready: false, message: error instanceof Error ? error.message : String(error) };
    }
  }

  needsFinalizer(): boolean {
    return true;
  }

  readonly pipelines: Backend["pipelines"] = {
    create: async (provider, definition) => {
      const compiled = compilePipeline({
        name: definition.name,
        spec: definition.spec,
        defaultBeamArgs: provider.spec.defaultBeamArgs,
        defaultCaching: provider.spec.defaultCaching,
      });
      if (!compiled.ok) throw new Error(compiled.error);
      return `${definition.owner.namespace}.${definition.owner.name}@${definition.version}`;
    },
    update: (provider, _id, definition) => this.pipelines.create(provider, definition),
    delete: async () => {},
  };

  readonly experiments: Backend["experiments"] = {
    create: async (_provider, definition) => `${definition.owner.namespace}.${definition.owner.name}`,
    update: async (_provider, id) => id,
    delete: async () => {},
  };

  readonly runs: Backend["runs"] = {
    create: async (provider, definition) => {
      const clients = await this.#clients(provider);
      const parent = locationName(clients.settings);
      const pipelineJobId = vertexId(definition.owner);
      const request = {
        parent,
        pipelineJobId,
        pipelineJob: pipelineJob(
          definition,
          provider,
          clients.settings,
          this.#pipelineSpec(definition, provider),
        ),
      };
      const name = `${parent}/pipelineJobs/${pipelineJobId}`;
      await calling(clients, "CreatePipelineJob", () => clients.pipelines.createPipelineJob(request)).catch(
        ignoring(alreadyExists), // created before from another copy: the same job
      );
      return name;
    },
    // a job runs what it was created with: an update (the Run's spec is immutable) changes nothing
    update: async (_provider, id) => id,
    delete: async (provider, name) => {
      const clients = await this.#at(provider);
      await calling(clients, "CancelPipelineJob", () => clients.pipelines.cancelPipelineJob({ name })).catch(
        ignoring(notFound, 9), // gone, or finished (FAILED_PRECONDITION)
      );
      await calling(clients, "DeletePipelineJob", () => clients.pipelines.deletePipelineJob({ name })).catch(
        ignoring(notFound),
      );
    },
    completion: async (provider, name, wanted) => {
      const clients = await this.#at(provider);
      try {
        const [job] = await calling(clients, "GetPipelineJob", () =>
          clients.pipelines.getPipelineJob({ name }),
        );
        return vertexRunObservation(job as VertexJob, wanted.artifacts, wanted.steps);
      } catch (error) {
        if (grpcCode(error) === notFound) return { state: "Failed", artifacts: [] }; // deleted: it will never finish
        throw error;
      }
    },
  };

  readonly runSchedules: Backend["runSchedules"] = {
    create: async (provider, definition) => {
      const clients = await this.#clients(provider);
      const request = {
        parent: locationName(clients.settings),
        schedule: schedule(definition, provider, clients.settings, this.#now()),
      };
      const [created] = await calling(clients, "CreateSchedule", () =>
        clients.schedules.createSchedule(request),
      );
      if (!created.name)
        throw new Error(`Vertex AI at ${clients.settings.apiEndpoint}: CreateSchedule returned no name`);
      return created.name;
    },
    /**
     * In place (UpdateSchedule): one live Schedule throughout, which starts no run due before the
     * update, and which a refused update leaves as it was; a Schedule deleted in Vertex meanwhile
     * is created again.
     */
    update: async (provider, name, definition) => {
      const clients = await this.#clients(provider);
      const request = scheduleUpdate(name, definition, provider, clients.settings, this.#now());
      const updated = await calling(clients, "UpdateSchedule", () =>
        clients.schedules.updateSchedule(request),
      ).then(
        () => true,
        (error: unknown) => {
          if (grpcCode(error) === notFound) return false;
          throw error;
        },
      );
      return updated ? name : this.runSchedules.create(provider, definition);
    },
    delete: async (provider, name) => {
      const clients = await this.#at(provider);
      await calling(clients, "DeleteSchedule", () => clients.schedules.deleteSchedule({ name })).catch(
        ignoring(notFound),
      );
    },
  };
}

/** The vertex backend calling only the endpoints the operator's outbound policy lets through. */
export const vertexBackendFor = (outbound: OutboundPolicy): BackendPlugin => ({
  create: (client) => new VertexBackend(client, outbound),
  writes: { pipeline: [], experiment: [], run: [], runSchedule: [] },
  readinessPermissions: [],
  callPermissions: [{ type: secretType, verbs: ["get"] }],
  // its calls need only callPermissions
  scheduledRuns: { create: (client) => vertexScheduledRuns(client, outbound), permissions: [] },
});

/** Under the default policy (nothing allowed beyond it). */
export const vertexBackend: BackendPlugin = vertexBackendFor(outboundPolicy());
