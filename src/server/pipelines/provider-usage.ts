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

/**
 * `namespace/name` of each Provider → the resources whose `spec.provider` names it (a bare name is
 * a Provider of the resource's own namespace), in kind then name order.
 */
export function providerUsers(resources: UsesProvider[]): Map<string, ProviderUser[]> {
  const users = new Map<string, ProviderUser[]>();
  for (const resource of resources) {
    const key = providerKey(resource.spec.provider, resource.metadata.namespace ?? "");
    const text = `${key.namespace}/${key.name}`;
    const list = users.get(text) ?? [];
    list.push({ kind: resource.kind, name: resource.metadata.name ?? "" });
    users.set(text, list);
  }
  for (const list of users.values())
    list.sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
  return users;
}
