/** Which namespaces to ask the API server about for a caller (pure): it decides access, not this. */

/** The namespace of a ServiceAccount's username (`system:serviceaccount:NS:NAME`), else undefined. */
export function serviceAccountNamespace(username: string): string | undefined {
  const match = /^system:serviceaccount:([^:]+):[^:]+$/.exec(username);
  return match?.[1];
}

export interface CandidateSources {
  /** The namespaces the caller may list (undefined when they may not list namespaces). */
  listed: string[] | undefined;
  username: string;
  /** The server's own namespace (where its Platform lives). */
  configured: string;
  /** Namespaces the page asked about (e.g. the one in its URL). */
  requested: string[];
}

/** Every namespace worth an access check, once each, sorted. */
export function candidateNamespaces(sources: CandidateSources): string[] {
  const own = serviceAccountNamespace(sources.username);
  const all = [...(sources.listed ?? []), ...(own ? [own] : []), sources.configured, ...sources.requested];
  return [...new Set(all.filter(Boolean))].sort();
}

export interface NamespaceAccess {
  name: string;
  /** The resources (plurals) the caller may list there. */
  resources: string[];
}

/**
 * The namespaces where the caller may list at least one resource: a resource allowed cluster-wide
 * is allowed in every candidate; otherwise `allowedIn(namespace)` says (the per-namespace checks).
 */
export function namespaceAccess(
  candidates: string[],
  resources: string[],
  clusterWide: Set<string>,
  allowedIn: (namespace: string) => Set<string>,
): NamespaceAccess[] {
  return candidates
    .map((name) => {
      const here = allowedIn(name);
      return {
        name,
        resources: resources.filter((resource) => clusterWide.has(resource) || here.has(resource)),
      };
    })
    .filter((access) => access.resources.length > 0);
}

/** The candidates after `after` (a page's last name, the `continue` token), in order; all without it. */
export function candidatesAfter(candidates: string[], after: string | undefined): string[] {
  return after === undefined ? candidates : candidates.filter((name) => name > after);
}
