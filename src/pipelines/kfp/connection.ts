/**
 * A kfp Provider configuration's connection to its KFP API server: the HTTP client with the
 * Provider's token, reused across reconciles (auth.ts) and kept per operator (per-client.ts).
 */
import type { Client } from "../../kube/types.ts";
import type { ProviderAt, ProviderConfig } from "../backend.ts";
import type { OutboundPolicy } from "../outbound-policy.ts";
import { keyText } from "../provider-ref.ts";
import { bearerToken, reusedToken } from "./auth.ts";
import { KfpHttp } from "./http.ts";
import { perClient } from "./per-client.ts";
import { type KfpSettings, kfpSettings } from "./settings.ts";

export interface KfpConnection {
  http: KfpHttp;
  settings: KfpSettings;
}

const connections = perClient<KfpConnection>();

export function kfpConnection(
  client: Client,
  provider: ProviderConfig,
  outbound: OutboundPolicy,
): KfpConnection {
  return connections(client, provider, () => {
    const settings = kfpSettings(provider, outbound);
    const token = reusedToken(() => bearerToken(client, provider.key.namespace, settings.auth));
    return { http: new KfpHttp(settings.endpoint, token, outbound), settings };
  });
}

/** The connection of a Provider that may be gone (a delete or a poll): an error naming it when it is. */
export function kfpConnectionAt(
  client: Client,
  provider: ProviderAt,
  outbound: OutboundPolicy,
): KfpConnection {
  if (!provider.config)
    throw new Error(`Provider ${keyText(provider.key)} no longer exists: its KFP cannot be reached`);
  return kfpConnection(client, provider.config, outbound);
}
