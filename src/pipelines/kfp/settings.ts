/**
 * A `kfp` Provider's `spec.parameters`, checked (pure): where its API is, the KFP namespace in
 * multi-user mode, and where the bearer token comes from. Bad input is an error naming the field;
 * an endpoint the operator's outbound policy refuses too.
 */

import { plainObject } from "../../lib/plain-object.ts";
import type { ProviderConfig } from "../backend.ts";
import { checkedUrl, type OutboundPolicy } from "../outbound-policy.ts";

export type KfpAuth =
  | { type: "none" }
  /** A Secret in the Provider's namespace holding the token under `key`. */
  | { type: "secret"; name: string; key: string }
  /** A token the operator requests for this ServiceAccount (in the Provider's namespace) and audience. */
  | { type: "serviceAccountToken"; serviceAccount: string; audience: string; expirationSeconds: number };

export interface KfpSettings {
  /** `http(s)://host:port`, without a trailing slash. */
  endpoint: string;
  namespace?: string;
  auth: KfpAuth;
}

export class SettingsError extends Error {
  override name = "SettingsError";
}

const field = (path: string) => `spec.parameters.${path}`;
const dnsName = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function text(value: unknown, path: string, rule: RegExp | undefined = undefined): string {
  if (typeof value !== "string" || value === "")
    throw new SettingsError(`${field(path)}: a non-empty string is required`);
  if (rule && !rule.test(value)) throw new SettingsError(`${field(path)}: must match ${rule.source}`);
  return value;
}

/** The endpoint, checked against the operator's outbound policy (no fragment, no userinfo, no loopback…). */
function endpointOf(value: unknown, outbound: OutboundPolicy): string {
  const endpoint = text(value, "endpoint");
  let url: URL;
  try {
    url = checkedUrl(outbound, field("endpoint"), endpoint);
  } catch (error) {
    throw new SettingsError((error as Error).message);
  }
  if (url.search)
    throw new SettingsError(
      `${field("endpoint")}: no query in the URL (use spec.parameters.auth for credentials)`,
    );
  return endpoint.replace(/\/+$/, "");
}

/** The longest token the operator asks for (a day): tokens are refreshed before they expire anyway. */
const maxTokenSeconds = 86_400;

function authOf(value: unknown): KfpAuth {
  if (value === undefined) return { type: "none" };
  const auth = plainObject(value);
  const secret = plainObject(auth?.bearerTokenSecret);
  const token = plainObject(auth?.serviceAccountToken);
  if (!auth || Boolean(secret) === Boolean(token))
    throw new SettingsError(`${field("auth")}: exactly one of bearerTokenSecret or serviceAccountToken`);
  if (secret)
    return {
      type: "secret",
      name: text(secret.name, "auth.bearerTokenSecret.name", dnsName),
      key: text(secret.key ?? "token", "auth.bearerTokenSecret.key", /^[-._a-zA-Z0-9]+$/),
    };
  const seconds = token?.expirationSeconds ?? 3600;
  if (typeof seconds !== "number" || !Number.isInteger(seconds) || seconds < 600 || seconds > maxTokenSeconds)
    throw new SettingsError(
      `${field("auth.serviceAccountToken.expirationSeconds")}: an integer from 600 to ${maxTokenSeconds}`,
    );
  return {
    type: "serviceAccountToken",
    serviceAccount: text(token?.serviceAccount, "auth.serviceAccountToken.serviceAccount", dnsName),
    audience: text(token?.audience ?? "pipelines.kubeflow.org", "auth.serviceAccountToken.audience"),
    expirationSeconds: seconds,
  };
}

/** The settings, or a SettingsError naming the first bad field. */
export function kfpSettings(provider: ProviderConfig, outbound: OutboundPolicy): KfpSettings {
  const parameters = provider.spec.parameters ?? {};
  const namespace = parameters.namespace;
  return {
    endpoint: endpointOf(parameters.endpoint, outbound),
    ...(namespace === undefined ? {} : { namespace: text(namespace, "namespace", dnsName) }),
    auth: authOf(parameters.auth),
  };
}
