/**
 * A vertex Provider configuration's clients of @google-cloud/aiplatform (PipelineServiceClient,
 * ScheduleServiceClient: a gRPC channel each), loaded on first use (a dynamic import) and kept per
 * operator and configuration (kfp/per-client.ts), with the credentials the Provider names; and how
 * a call's error names the endpoint.
 */
import { secretType } from "../../kube/core-types.ts";
import type { Client, KubeObject } from "../../kube/types.ts";
import type { ProviderAt, ProviderConfig } from "../backend.ts";
import { perClient } from "../kfp/per-client.ts";
import type { OutboundPolicy } from "../outbound-policy.ts";
import { keyText } from "../provider-ref.ts";
import { type VertexSettings, vertexSettings } from "./settings.ts";

type Aiplatform = typeof import("@google-cloud/aiplatform");
type ClientOptions = NonNullable<ConstructorParameters<Aiplatform["v1"]["PipelineServiceClient"]>[0]>;
/**
 * google-gax types `authClient` with its own nested copy of google-auth-library; an auth client
 * made with the top-level copy is the same class at run time (gax only calls its methods).
 */
const asAuthClient = (client: object) => client as ClientOptions["authClient"];
export interface Clients {
  pipelines: InstanceType<Aiplatform["v1"]["PipelineServiceClient"]>;
  schedules: InstanceType<Aiplatform["v1"]["ScheduleServiceClient"]>;
  settings: VertexSettings;
}

/** The scope the client library itself asks for (the `scope` claim of its self-signed JWTs). */
const cloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform";
export const grpcCode = (error: unknown) => (error as { code?: number })?.code;
export const notFound = 5;
export const alreadyExists = 6;

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
 * (a JWT client signing its own bearer JWTs, scope cloud-platform), no credentials for a plaintext loopback endpoint (google-auth's
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
  const jwt = new auth.JWT(await serviceAccountKey(client, provider, settings.keySecret));
  // as GoogleAuth sets up a key's client for Google's client libraries: the client signs its own
  // bearer JWTs with the key; else each token is an exchange with https://oauth2.googleapis.com/token
  // (fixed in google-auth-library 10.9 for this client, whatever the key's token_uri says)
  jwt.useJWTAccessWithScope = true;
  return { authClient: asAuthClient(jwt) };
}

async function makeClients(
  client: Client,
  provider: ProviderConfig,
  outbound: OutboundPolicy,
): Promise<Clients> {
  const settings = vertexSettings(provider, outbound);
  const { v1 } = await import("@google-cloud/aiplatform");
  const options = {
    // Google's regional endpoint, or a host the installer listed (vertexSettings): a name listed is
    // trusted with what it resolves to, so the channel resolves it itself
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
/**
 * gRPC's status code names (https://grpc.github.io/grpc/core/md_doc_statuscodes.html), in code order:
 * what a failed call reports instead of the backend's own text.
 */
const grpcStatusNames = [
  "OK",
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
];

/**
 * How a failed call is reported: its gRPC status (code and name), never the text the backend or the
 * auth library sent with it — what a backend answers never reaches status or Events. A failure
 * without a gRPC status (the channel or the token exchange) says only that.
 */
export function callFailure(error: unknown): string {
  const code = grpcCode(error);
  if (typeof code === "number" && Number.isInteger(code))
    return `gRPC status ${code} ${grpcStatusNames[code] ?? "unknown code"}`;
  return "failed before a gRPC status (connection or credentials)";
}

/** Runs one call; a failure names the endpoint, the call and its gRPC status, keeping the code. */
export async function calling<T>(clients: Clients, call: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const wrapped = new Error(`Vertex AI at ${clients.settings.apiEndpoint}: ${call}: ${callFailure(error)}`);
    Object.assign(wrapped, { code: grpcCode(error) });
    throw wrapped;
  }
}

export const ignoring =
  (...codes: number[]) =>
  (error: unknown) => {
    if (!codes.includes(grpcCode(error) ?? -1)) throw error;
  };

export function vertexClients(
  client: Client,
  provider: ProviderConfig,
  outbound: OutboundPolicy,
): Promise<Clients> {
  return clientsOf(client, provider, () => {
    const clients = makeClients(client, provider, outbound);
    clients.catch(() => clientsOf.forget(client, provider)); // a bad configuration is read again next time
    return clients;
  });
}

/** The clients of a Provider that may be gone (a delete or a poll): an error naming it when it is. */
export function vertexClientsAt(
  client: Client,
  provider: ProviderAt,
  outbound: OutboundPolicy,
): Promise<Clients> {
  if (!provider.config)
    throw new Error(`Provider ${keyText(provider.key)} no longer exists: Vertex AI cannot be reached`);
  return vertexClients(client, provider.config, outbound);
}
