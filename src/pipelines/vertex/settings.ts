/**
 * A `vertex` Provider's `spec.parameters`, checked (pure): the project and location, the jobs'
 * service account and network, the credentials (ambient — Workload Identity — or a key Secret) and,
 * for tests, a plaintext endpoint on loopback. Bad input is an error naming the field. Through the
 * operator's outbound policy: an apiEndpoint other than Google's own regional one must be on its
 * allow list (the key's signed JWT, scope cloud-platform, is a credential for all of Google Cloud:
 * it goes nowhere else), and ambient credentials only in the namespaces it names.
 */
import type { ProviderConfig } from "../backend.ts";
import {
  ambientAllowed,
  ambientNamespacesVariable,
  hostVerdict,
  type OutboundPolicy,
  outboundAllowVariable,
  refusal,
} from "../outbound-policy.ts";

export interface VertexSettings {
  project: string;
  location: string;
  serviceAccount?: string;
  network?: string;
  /** A Secret in the Provider's namespace holding a service account key (JSON) under `key`. */
  keySecret?: { name: string; key: string };
  apiEndpoint: string;
  port?: number;
  /** No TLS and no credentials: only to a loopback endpoint (the tests' server). */
  plaintext: boolean;
}

const field = (path: string) => `spec.parameters.${path}`;

function text(value: unknown, path: string, rule?: RegExp): string {
  if (typeof value !== "string" || value === "")
    throw new Error(`${field(path)}: a non-empty string is required`);
  if (rule && !rule.test(value)) throw new Error(`${field(path)}: must match ${rule.source}`);
  return value;
}

const optional = (value: unknown, path: string, rule?: RegExp) =>
  value === undefined ? undefined : text(value, path, rule);

/** Google's regional endpoint of Vertex AI: the one apiEndpoint the allow list need not name. */
const googleEndpoint = (location: string) => `${location}-aiplatform.googleapis.com`;

function endpointOf(parameters: Record<string, unknown>, location: string, outbound: OutboundPolicy) {
  const endpoint = optional(parameters.apiEndpoint, "apiEndpoint", /^[-.a-zA-Z0-9]+(:[0-9]+)?$/);
  const [given, port] = endpoint ? endpoint.toLowerCase().split(":") : [];
  const host = given || googleEndpoint(location);
  if (host !== googleEndpoint(location)) {
    const verdict = hostVerdict(outbound, host);
    if (!("listed" in verdict))
      throw new Error(
        "refused" in verdict
          ? refusal(field("apiEndpoint"), host, verdict.refused)
          : `${field("apiEndpoint")}: ${host} is not Google's endpoint (${googleEndpoint(location)}) nor on the operator's outbound allow list (${outboundAllowVariable})`,
      );
  }
  const plaintext = parameters.plaintext === true;
  if (plaintext && host !== "127.0.0.1" && host !== "localhost")
    throw new Error(`${field("plaintext")}: only with a loopback apiEndpoint (127.0.0.1 or localhost)`);
  return {
    apiEndpoint: host,
    ...(port ? { port: Number(port) } : {}),
    plaintext,
  };
}

function keySecretOf(value: unknown): VertexSettings["keySecret"] {
  if (value === undefined) return undefined;
  const secret = (value as { keySecret?: { name?: unknown; key?: unknown } }).keySecret;
  if (!secret)
    throw new Error(`${field("credentials")}: only keySecret {name, key} (or no credentials: ambient)`);
  return {
    name: text(secret.name, "credentials.keySecret.name", /^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/),
    key: text(secret.key ?? "key.json", "credentials.keySecret.key", /^[-._a-zA-Z0-9]+$/),
  };
}

export function vertexSettings(provider: ProviderConfig, outbound: OutboundPolicy): VertexSettings {
  const parameters = provider.spec.parameters ?? {};
  const location = text(parameters.location, "location", /^[a-z]+-[a-z]+[0-9]+$/);
  const keySecret = keySecretOf(parameters.credentials);
  const endpoint = endpointOf(parameters, location, outbound);
  const namespace = provider.key.namespace;
  if (!keySecret && !endpoint.plaintext && !ambientAllowed(outbound, namespace))
    throw new Error(
      `${field("credentials")}: none given, and the operator's ambient cloud credentials are not for namespace ${namespace} (${ambientNamespacesVariable})`,
    );
  const serviceAccount = optional(parameters.serviceAccount, "serviceAccount", /^[^@\s]+@[^@\s]+$/);
  const network = optional(parameters.network, "network", /^projects\/[^/]+\/global\/networks\/[^/]+$/);
  return {
    project: text(parameters.project, "project", /^[a-z][-a-z0-9]{4,28}[a-z0-9]$/),
    location,
    ...(serviceAccount ? { serviceAccount } : {}),
    ...(network ? { network } : {}),
    ...(keySecret ? { keySecret } : {}),
    ...endpoint,
  };
}

export const locationName = (settings: VertexSettings) =>
  `projects/${settings.project}/locations/${settings.location}`;
