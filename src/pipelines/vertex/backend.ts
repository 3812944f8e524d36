/**
 * The vertex backend, with the official client @google-cloud/aiplatform (v1, gRPC): Run →
 * PipelineJob with the Pipeline's IR as its pipelineSpec, RunSchedule → Schedule, completion from
 * the job's state. Vertex keeps no pipeline registry and has no experiments of this kind: a
 * Pipeline is checked (compiled) only, an Experiment is a name. The client is loaded on the first
 * use of a vertex Provider (a dynamic import): the operator loads no cloud SDK at start.
 */
import { secretType } from "../../kube/core-types.ts";
import type { Client, KubeObject } from "../../kube/types.ts";
import type { Backend, BackendPlugin, BackendReadiness, ProviderAt, ProviderConfig } from "../backend.ts";
import { compilePipeline } from "../kfp/compile.ts";
import { perClient } from "../kfp/per-client.ts";
import { keyText } from "../provider-ref.ts";
import { pipelineJob, schedule, type VertexJob, vertexId, vertexRunCompletion } from "./requests.ts";
import { locationName, type VertexSettings, vertexSettings } from "./settings.ts";

type Aiplatform = typeof import("@google-cloud/aiplatform");
type ClientOptions = NonNullable<ConstructorParameters<Aiplatform["v1"]["PipelineServiceClient"]>[0]>;
/**
 * google-gax types `authClient` with its own nested copy of google-auth-library; an auth client
 * made with the top-level copy is the same class at run time (gax only calls its methods).
 */
const asAuthClient = (client: object) => client as ClientOptions["authClient"];
interface Clients {
  pipelines: InstanceType<Aiplatform["v1"]["PipelineServiceClient"]>;
  schedules: InstanceType<Aiplatform["v1"]["ScheduleServiceClient"]>;
  settings: VertexSettings;
}

/** The scope the client library itself asks for (an access token from Google's token endpoint). */
const cloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform";
const grpcCode = (error: unknown) => (error as { code?: number })?.code;
const notFound = 5;
const alreadyExists = 6;

/** Clients per operator and Provider configuration (kfp/per-client.ts): a gRPC channel each. */
const clientsOf = perClient<Promise<Clients>>();

/** The key Secret's service account key (JSON), checked: its email and private key. */
async function serviceAccountKey(
  client: Client,
  provider: ProviderConfig,
  keySecret: { name: string; key: string },
) {
  const { name, key } = keySecret;
  const where = `spec.parameters.credentials.keySecret: Secret ${provider.key.namespace}/${name}`;
  const secret = await client.get<KubeObject & { data?: Record<string, string> }>(secretType, {
    namespace: provider.key.namespace,
    name,
  });
  const data = secret?.data?.[key];
  if (!data) throw new Error(`${where} does not exist or has no key ${key}`);
  let parsed: { client_email?: string; private_key?: string; private_key_id?: string } = {};
  try {
    parsed = JSON.parse(Buffer.from(data, "base64").toString("utf8"));
  } catch {
    // reported below, without the Secret's text
  }
  if (!parsed.client_email || !parsed.private_key)
    throw new Error(`${where}: key ${key} is not a service account key (JSON)`);
  return {
    email: parsed.client_email,
    key: parsed.private_key,
    keyId: parsed.private_key_id,
    scopes: [cloudPlatformScope],
  };
}

/**
 * Who the client authenticates as, always explicit so that google-auth never goes looking (its
 * application-default lookup asks the GCE metadata server): the key Secret's service account
 * (a JWT client: access tokens for the cloud-platform scope), no credentials for a plaintext loopback endpoint (google-auth's
 * PassThroughClient, meant for emulators), or — neither given — application-default credentials
 * (Workload Identity: the metadata server is where they come from).
 */
async function authOptions(client: Client, provider: ProviderConfig, settings: VertexSettings) {
  const auth = await import("google-auth-library");
  if (settings.plaintext) {
    const { grpc } = await import("google-gax");
    return {
      sslCreds: grpc.credentials.createInsecure(),
      authClient: asAuthClient(new auth.PassThroughClient()),
    };
  }
  if (!settings.keySecret) return {};
  return {
    authClient: asAuthClient(new auth.JWT(await serviceAccountKey(client, provider, settings.keySecret))),
  };
}

async function makeClients(client: Client, provider: ProviderConfig): Promise<Clients> {
  const settings = vertexSettings(provider);
  const { v1 } = await import("@google-cloud/aiplatform");
  const options = {
    apiEndpoint: settings.apiEndpoint,
    ...(settings.port ? { port: settings.port } : {}),
    projectId: settings.project,
    ...(await authOptions(client, provider, settings)),
  };
  return {
    pipelines: new v1.PipelineServiceClient(options),
    schedules: new v1.ScheduleServiceClient(options),
    settings,
  };
}

/** A Vertex call whose error names the endpoint and the call (the client's message has the gRPC status). */
async function calling<T>(clients: Clients, call: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const wrapped = new Error(`Vertex AI at ${clients.settings.apiEndpoint}: ${call}: ${message}`);
    Object.assign(wrapped, { code: grpcCode(error) });
    throw wrapped;
  }
}

const ignoring =
  (...codes: number[]) =>
  (error: unknown) => {
    if (!codes.includes(grpcCode(error) ?? -1)) throw error;
  };

export class VertexBackend implements Backend {
  readonly #client: Client;
  readonly #now: () => number;

  constructor(client: Client, now: () => number = Date.now) {
    this.#client = client;
    this.#now = now;
  }

  #clients(provider: ProviderConfig): Promise<Clients> {
    return clientsOf(this.#client, provider, () => {
      const clients = makeClients(this.#client, provider);
      clients.catch(() => clientsOf.forget(this.#client, provider)); // a bad configuration is read again next time
      return clients;
    });
  }

  #at(provider: ProviderAt): Promise<Clients> {
    if (!provider.config)
      throw new Error(`Provider ${keyText(provider.key)} no longer exists: Vertex AI cannot be reached`);
    return this.#clients(provider.config);
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
      });
      if (!compiled.ok) throw new Error(`${compiled.field}: ${compiled.error}`);
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
        pipelineJob: pipelineJob(definition, provider, clients.settings),
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
        return vertexRunCompletion(job as VertexJob, wanted.artifacts);
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
    // the new Schedule is created before the old one goes
    update: async (provider, id, definition) => {
      const created = await this.runSchedules.create(provider, definition);
      await this.runSchedules.delete({ key: provider.key, config: provider }, id);
      return created;
    },
    delete: async (provider, name) => {
      const clients = await this.#at(provider);
      await calling(clients, "DeleteSchedule", () => clients.schedules.deleteSchedule({ name })).catch(
        ignoring(notFound),
      );
    },
  };
}

export const vertexBackend: BackendPlugin = {
  create: (client) => new VertexBackend(client),
  writes: { pipeline: [], experiment: [], run: [], runSchedule: [] },
  readinessPermissions: [],
  callPermissions: [{ type: secretType, verbs: ["get"] }],
};
