/**
 * A `vertex` Provider's `spec.parameters`, checked (pure): the project and location, the jobs'
 * service account and network, the credentials (ambient — Workload Identity — or a key Secret) and,
 * for tests, a plaintext endpoint on loopback. Bad input is an error naming the field.
 */
import type { ProviderConfig } from "../backend.ts";

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

function endpointOf(parameters: Record<string, unknown>, location: string) {
  const endpoint = optional(parameters.apiEndpoint, "apiEndpoint", /^[-.a-zA-Z0-9]+(:[0-9]+)?$/);
  const [host = `${location}-aiplatform.googleapis.com`, port] = (endpoint ?? "").split(":");
  const plaintext = parameters.plaintext === true;
  if (plaintext && host !== "127.0.0.1" && host !== "localhost")
    throw new Error(`${field("plaintext")}: only with a loopback apiEndpoint (127.0.0.1 or localhost)`);
  return {
    apiEndpoint: host || `${location}-aiplatform.googleapis.com`,
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

export function vertexSettings(provider: ProviderConfig): VertexSettings {
  const parameters = provider.spec.parameters ?? {};
  const location = text(parameters.location, "location", /^[a-z]+-[a-z]+[0-9]+$/);
  const keySecret = keySecretOf(parameters.credentials);
  const serviceAccount = optional(parameters.serviceAccount, "serviceAccount", /^[^@\s]+@[^@\s]+$/);
  const network = optional(parameters.network, "network", /^projects\/[^/]+\/global\/networks\/[^/]+$/);
  return {
    project: text(parameters.project, "project", /^[a-z][-a-z0-9]{4,28}[a-z0-9]$/),
    location,
    ...(serviceAccount ? { serviceAccount } : {}),
    ...(network ? { network } : {}),
    ...(keySecret ? { keySecret } : {}),
    ...endpointOf(parameters, location),
  };
}

export const locationName = (settings: VertexSettings) =>
  `projects/${settings.project}/locations/${settings.location}`;
