/**
 * The webhook's serving certificate, kept in a Secret of the operator's namespace so that every
 * replica serves the same one: read it, and when it is missing or due (certificates.ts) issue a new
 * one and write it with the Secret's resourceVersion as precondition, so that of two replicas
 * rotating at once one wins and the other takes the winner's.
 */
import type { V1Secret } from "@kubernetes/client-node";
import type { RestClient } from "../kube/rest.ts";
import { ApiError } from "../kube/rest.ts";
import { certificateFacts, issueServingCertificate, nextCaBundle, rotationReason } from "./certificates.ts";

export interface ServingMaterial {
  certPem: string;
  keyPem: string;
  /** The CAs the API server should trust (PEM bundle): the current one first. */
  caBundle: string;
}

export interface ServingSecretOptions {
  namespace: string;
  name: string;
  /** The names the API server reaches the webhook by (a Service's DNS names, or 127.0.0.1). */
  hosts: string[];
  /** Default 90. */
  lifetimeDays?: number;
}

type Rest = Pick<RestClient, "request">;

const b64 = (text: string) => Buffer.from(text).toString("base64");
const text = (value: string | undefined) =>
  value ? Buffer.from(value, "base64").toString("utf8") : undefined;

function materialOf(secret: V1Secret | undefined): Partial<ServingMaterial> {
  const data = secret?.data ?? {};
  return { certPem: text(data["tls.crt"]), keyPem: text(data["tls.key"]), caBundle: text(data["ca.crt"]) };
}

const complete = (material: Partial<ServingMaterial>): material is ServingMaterial =>
  Boolean(material.certPem && material.keyPem && material.caBundle);

async function readSecret(rest: Rest, path: string): Promise<V1Secret | undefined> {
  try {
    return await rest.request<V1Secret>("GET", path);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

/** The serving material in force: the Secret's, or a new one written there first. */
export async function ensureServingSecret(
  rest: Rest,
  options: ServingSecretOptions,
  now: Date,
): Promise<{ material: ServingMaterial; rotated?: string }> {
  const collection = `/api/v1/namespaces/${options.namespace}/secrets`;
  const path = `${collection}/${options.name}`;
  const secret = await readSecret(rest, path);
  const current = materialOf(secret);
  const reason = complete(current)
    ? rotationReason(certificateFacts(current.certPem), options.hosts, now)
    : "no serving certificate yet";
  if (!reason && complete(current)) return { material: current };
  const issued = await issueServingCertificate(options.hosts, now, options.lifetimeDays ?? 90);
  const material = {
    certPem: issued.certPem,
    keyPem: issued.keyPem,
    caBundle: nextCaBundle(issued.caPem, current.caBundle, now),
  };
  const body: V1Secret = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: options.name,
      namespace: options.namespace,
      labels: { "app.kubernetes.io/part-of": "slipway", "app.kubernetes.io/component": "webhook" },
      ...(secret?.metadata?.resourceVersion ? { resourceVersion: secret.metadata.resourceVersion } : {}),
    },
    type: "kubernetes.io/tls",
    data: {
      "tls.crt": b64(material.certPem),
      "tls.key": b64(material.keyPem),
      "ca.crt": b64(material.caBundle),
    },
  };
  try {
    if (secret) await rest.request("PUT", path, { body });
    else await rest.request("POST", collection, { body });
  } catch (error) {
    // another replica wrote it first: serve what it wrote
    if (!(error instanceof ApiError && error.status === 409)) throw error;
    const winner = materialOf(await readSecret(rest, path));
    if (!complete(winner)) throw error;
    return { material: winner };
  }
  return { material, rotated: reason };
}
