/**
 * What a token of the platform's registry grants (pure): the scopes a client asks for, parsed as the
 * distribution token spec writes them, intersected with what its account may do. Anything not
 * granted is left out of the token (the spec's rule: the registry then refuses the request that
 * needed it); an account that may do nothing is refused before this, with a 401.
 *
 * https://distribution.github.io/distribution/spec/auth/scope/ :
 *   scope := resourcetype[(resourceclass)] ":" resourcename ":" action[,action]*
 * A resource name may itself hold a `:` (a host's port), so the type ends at the first `:` and the
 * actions start after the last. Several scopes come as repeated `scope` parameters, or space-separated.
 */
import type { BuildGrant } from "../../builds/registry/build-credentials.ts";

/** One entry of the token's `access` claim (registry/auth/token/token.go ResourceActions). */
export interface ResourceActions {
  type: string;
  name: string;
  actions: string[];
}

/** Who asked: the platform's own user (every right), or one build's credential (its grant). */
export type Account = { kind: "platform" } | { kind: "build"; grant: BuildGrant };

/** The scopes of a request's `scope` parameters; a malformed one is left out (nothing to grant). */
export function parseScopes(values: readonly string[]): ResourceActions[] {
  return values
    .flatMap((value) => value.split(" "))
    .flatMap((scope) => {
      const first = scope.indexOf(":");
      const last = scope.lastIndexOf(":");
      if (first < 1 || last <= first + 1) return [];
      const type = scope.slice(0, first).replace(/\(.*\)$/, "");
      const name = scope.slice(first + 1, last);
      const actions = scope
        .slice(last + 1)
        .split(",")
        .filter(Boolean);
      return actions.length ? [{ type, name, actions }] : [];
    });
}

/** Every action on every repository, and the catalog: what the platform's user may do. */
const platformRepositoryActions = ["pull", "push", "delete", "*"];

/** The actions `account` may take on the resource, of those asked. */
function allowedActions(account: Account, scope: ResourceActions): string[] {
  const may = (actions: string[]) => scope.actions.filter((action) => actions.includes(action));
  if (account.kind === "platform") {
    if (scope.type === "repository") return may(platformRepositoryActions);
    if (scope.type === "registry" && scope.name === "catalog") return may(["*"]);
    return [];
  }
  if (scope.type !== "repository") return [];
  if (scope.name === account.grant.repository) return may(["pull", "push"]);
  if (account.grant.pull.includes(scope.name)) return may(["pull"]);
  return [];
}

/** The token's `access`: what was asked, as far as `account` may; one entry per resource. */
export function grantedAccess(account: Account, requested: readonly ResourceActions[]): ResourceActions[] {
  const granted = new Map<string, ResourceActions>();
  for (const scope of requested) {
    const actions = allowedActions(account, scope);
    if (actions.length === 0) continue;
    const key = `${scope.type} ${scope.name}`;
    const entry = granted.get(key) ?? { type: scope.type, name: scope.name, actions: [] };
    entry.actions = [...new Set([...entry.actions, ...actions])];
    granted.set(key, entry);
  }
  return [...granted.values()];
}
