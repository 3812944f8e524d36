/** Which resources of a namespace use each Provider (pure). */
import { type Static, Type } from "@sinclair/typebox";
import { providerKey } from "../../pipelines/provider-ref.ts";

export const ProviderUser = Type.Object({ kind: Type.String(), name: Type.String() });
export type ProviderUser = Static<typeof ProviderUser>;

/** A pipeline resource as far as its Provider goes. */
export interface UsesProvider {
  kind: string;
  metadata: { name?: string; namespace?: string };
  spec: { provider: string };
}

/** `namespace/name` of the Provider `resource` names (a bare name is a Provider of its own namespace). */
export function providerOf(resource: UsesProvider): string {
  const key = providerKey(resource.spec.provider, resource.metadata.namespace ?? "");
  return `${key.namespace}/${key.name}`;
}

/**
 * `namespace/name` of each Provider → the resources whose `spec.provider` names it, in kind then
 * name order; with `only`, just those Providers' (a page's), so nothing else is kept.
 */
export function providerUsers(resources: UsesProvider[], only?: Set<string>): Map<string, ProviderUser[]> {
  const users = new Map<string, ProviderUser[]>();
  for (const resource of resources) {
    const text = providerOf(resource);
    if (only && !only.has(text)) continue;
    const list = users.get(text) ?? [];
    list.push({ kind: resource.kind, name: resource.metadata.name ?? "" });
    users.set(text, list);
  }
  for (const list of users.values()) list.sort(byKindThenName);
  return users;
}

/** The order of a Provider's users: kind, then name. */
export const byKindThenName = (a: ProviderUser, b: ProviderUser) =>
  a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name);
