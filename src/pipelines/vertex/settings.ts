/**
 * A `vertex` Provider's `spec.parameters`, checked (pure): the project and location, the jobs'
 * service account and network, the credentials (ambient — Workload Identity — or a key Secret) and,
 * for tests, a plaintext endpoint on loopback. Bad input is an error naming the field. Through the
 * operator's outbound policy: an apiEndpoint other than Google's own regional one must be on its
 * allow list (the key's signed JWT, scope cloud-platform, is a credential for all of Google Cloud:
 * it goes nowhere else), and ambient credentials only in the namespaces it names.
 */
import { type Static, Type } from "@sinclair/typebox";
import { ObjectName } from "../../apis/schema.ts";
import type { ProviderConfig } from "../backend.ts";
import {
  ambientAllowed,
  ambientNamespacesVariable,
  hostVerdict,
  type OutboundPolicy,
  outboundAllowVariable,
  refusal,
} from "../outbound-policy.ts";
import { checkedParameters, ProviderParametersError, parametersField } from "../provider-parameters.ts";

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

const VertexParameters = Type.Object({
  /** A Google Cloud project ID. */
  project: Type.String({ pattern: "^[a-z][-a-z0-9]{4,28}[a-z0-9]$" }),
  /** A region, e.g. europe-west4. */
  location: Type.String({ pattern: "^[a-z]+-[a-z]+[0-9]+$" }),
  /** The service account the pipeline jobs run as. */
  serviceAccount: Type.Optional(Type.String({ pattern: "^[^@\\s]+@[^@\\s]+$" })),
  network: Type.Optional(Type.String({ pattern: "^projects/[^/]+/global/networks/[^/]+$" })),
  /** None: the operator's ambient credentials (Workload Identity), where the installer allows them. */
  credentials: Type.Optional(
    Type.Object({
      keySecret: Type.Object({
        name: ObjectName(),
        key: Type.String({ minLength: 1, pattern: "^[-._a-zA-Z0-9]+$", default: "key.json" }),
      }),
    }),
  ),
  /** `host[:port]`; Google's regional endpoint when absent. */
  apiEndpoint: Type.Optional(Type.String({ pattern: "^[-.a-zA-Z0-9]+(:[0-9]+)?$" })),
  plaintext: Type.Boolean({ default: false }),
});

/** Google's regional endpoint of Vertex AI: the one apiEndpoint the allow list need not name. */
const googleEndpoint = (location: string) => `${location}-aiplatform.googleapis.com`;

function endpointOf(parameters: Static<typeof VertexParameters>, outbound: OutboundPolicy) {
  const { apiEndpoint, location, plaintext } = parameters;
  const [given, port] = apiEndpoint ? apiEndpoint.toLowerCase().split(":") : [];
  const host = given || googleEndpoint(location);
  const field = parametersField("apiEndpoint");
  if (host !== googleEndpoint(location)) {
    const verdict = hostVerdict(outbound, host);
    if (!("listed" in verdict))
      throw new ProviderParametersError(
        "refused" in verdict
          ? refusal(field, host, verdict.refused)
          : `${field}: ${host} is not Google's endpoint (${googleEndpoint(location)}) nor on the operator's outbound allow list (${outboundAllowVariable})`,
      );
  }
  if (plaintext && host !== "127.0.0.1" && host !== "localhost")
    throw new ProviderParametersError(
      `${parametersField("plaintext")}: only with a loopback apiEndpoint (127.0.0.1 or localhost)`,
    );
  return {
    apiEndpoint: host,
    ...(port ? { port: Number(port) } : {}),
    plaintext,
  };
}

/** The settings, or a ProviderParametersError naming the first bad field. */
export function vertexSettings(provider: ProviderConfig, outbound: OutboundPolicy): VertexSettings {
  const parameters = checkedParameters(VertexParameters, provider);
  const { project, location, serviceAccount, network, credentials } = parameters;
  const endpoint = endpointOf(parameters, outbound);
  const namespace = provider.key.namespace;
  if (!credentials && !endpoint.plaintext && !ambientAllowed(outbound, namespace))
    throw new ProviderParametersError(
      `${parametersField("credentials")}: none given, and the operator's ambient cloud credentials are not for namespace ${namespace} (${ambientNamespacesVariable})`,
    );
  return {
    project,
    location,
    ...(serviceAccount ? { serviceAccount } : {}),
    ...(network ? { network } : {}),
    ...(credentials
      ? { keySecret: { name: credentials.keySecret.name, key: credentials.keySecret.key } }
      : {}),
    ...endpoint,
  };
}

export const locationName = (settings: VertexSettings) =>
  `projects/${settings.project}/locations/${settings.location}`;
