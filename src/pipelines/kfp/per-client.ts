/**
 * What a remote backend keeps between reconciles (connections, tokens), per operator — the
 * Kubernetes client its Manager made — and per Provider configuration (`namespace/name@version`):
 * two Managers in one process share nothing, and a Provider's edit gets a fresh entry. Bounded:
 * the configurations used least recently are forgotten first.
 */

import type { Client } from "../../kube/types.ts";
import { setNewest } from "../../lib/bounded-map.ts";
import type { ProviderConfig } from "../backend.ts";
import { keyText } from "../provider-ref.ts";

const remembered = 256;

export type PerClient<T> = (client: Client, provider: ProviderConfig, make: () => T) => T;

export function perClient<T>(): PerClient<T> & { forget(client: Client, provider: ProviderConfig): void } {
  const byClient = new WeakMap<Client, Map<string, T>>();
  const keyOf = (provider: ProviderConfig) => `${keyText(provider.key)}@${provider.version}`;
  const memo = (client: Client, provider: ProviderConfig, make: () => T) => {
    const entries = byClient.get(client) ?? new Map<string, T>();
    byClient.set(client, entries);
    const key = keyOf(provider);
    const value = entries.has(key) ? (entries.get(key) as T) : make();
    setNewest(entries, key, value, remembered);
    return value;
  };
  return Object.assign(memo, {
    forget: (client: Client, provider: ProviderConfig) => byClient.get(client)?.delete(keyOf(provider)),
  });
}
