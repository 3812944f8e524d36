/**
 * `GET /namespaces`: the namespaces where the caller may list the UI's resources, as the API server
 * decides for the caller (SelfSubjectAccessReviews with their token) — never the server's identity.
 * Paged like the list routes (`limit`, `continue`): a page is the first `limit` visible namespaces
 * after the `continue` name, in name order, so a page costs the access reviews of its own names only.
 */
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { ImageBuildKind } from "../../apis/builds/imagebuild.ts";
import type { Kind } from "../../apis/kind.ts";
import { PipelineKind, ProviderKind, RunKind } from "../../apis/pipelines/index.ts";
import { selfMay } from "../../kube/access-review.ts";
import { namespaceType } from "../../kube/core-types.ts";
import { resourcePath } from "../../kube/keys.ts";
import type { RestClient } from "../../kube/rest.ts";
import { errorResponses, upstreamStatus } from "../errors.ts";
import { defaultPageSize, maxPageSize, PageQuery } from "../paging.ts";
import { Namespace } from "../params.ts";
import { candidateNamespaces, candidatesAfter, type NamespaceAccess, namespaceAccess } from "./candidates.ts";

const listedKinds: Kind[] = [ImageBuildKind, PipelineKind, RunKind, ProviderKind];
const plurals = listedKinds.map((kind) => kind.plural);

const NamespacesQuery = Type.Object(
  {
    include: Type.Optional(
      Type.Array(Namespace, { maxItems: 16, description: "Namespaces to check too (e.g. the page's)" }),
    ),
    limit: PageQuery.properties.limit,
    continue: Type.Optional(
      Type.String({
        ...Namespace,
        description: "The `continue` of the previous page: the last namespace it held",
      }),
    ),
  },
  { additionalProperties: false },
);
const NamespacesView = Type.Object({
  namespaces: Type.Array(
    Type.Object({
      name: Type.String(),
      resources: Type.Array(Type.String(), { description: "Plurals the caller may list there" }),
    }),
  ),
  continue: Type.Optional(
    Type.String({
      description: "Ask for the next page with this (the page's last name); absent on the last page",
    }),
  ),
});

/** Whether the caller may list `kind` in `namespace` (cluster-wide when undefined). */
const mayList = (rest: RestClient, kind: Kind, namespace: string | undefined): Promise<boolean> =>
  selfMay(rest, {
    resourceAttributes: {
      verb: "list",
      group: kind.group,
      resource: kind.plural,
      ...(namespace ? { namespace } : {}),
    },
  });

/** The names of the namespaces the caller may list (read in pages, names kept), or undefined when they may not. */
async function listedNamespaces(rest: RestClient): Promise<string[] | undefined> {
  const names: string[] = [];
  let next: string | undefined;
  try {
    do {
      const list = await rest.request<{
        items: { metadata?: { name?: string } }[];
        metadata?: { continue?: string };
      }>("GET", resourcePath(namespaceType), { query: { limit: maxPageSize, continue: next } });
      for (const namespace of list.items) names.push(namespace.metadata?.name ?? "");
      next = list.metadata?.continue || undefined;
    } while (next);
    return names;
  } catch (error) {
    if (upstreamStatus(error) === 403) return undefined;
    throw error;
  }
}

/** Runs `work` over `items`, `width` at a time. */
async function inBatches<T, R>(items: T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += width)
    results.push(...(await Promise.all(items.slice(start, start + width).map(work))));
  return results;
}

/** The kinds the caller may list in every namespace. */
async function clusterWideKinds(rest: RestClient): Promise<Set<string>> {
  const wide = await Promise.all(listedKinds.map((kind) => mayList(rest, kind, undefined)));
  return new Set(plurals.filter((_, index) => wide[index]));
}

async function accessOf(rest: RestClient, candidates: string[], clusterWide: Set<string>) {
  const narrow = listedKinds.filter((kind) => !clusterWide.has(kind.plural));
  const perNamespace = new Map<string, Set<string>>();
  const pairs = candidates.flatMap((namespace) => narrow.map((kind) => ({ namespace, kind })));
  const allowed = await inBatches(pairs, 16, ({ namespace, kind }) => mayList(rest, kind, namespace));
  pairs.forEach(({ namespace, kind }, index) => {
    if (!allowed[index]) return;
    perNamespace.set(namespace, (perNamespace.get(namespace) ?? new Set()).add(kind.plural));
  });
  return namespaceAccess(candidates, plurals, clusterWide, (name) => perNamespace.get(name) ?? new Set());
}

/**
 * The first `limit` of `candidates` where the caller may list something, checked a batch at a time
 * (no more names than the page still lacks), and the `continue` of the page: its last name, when
 * candidates remain after it.
 */
async function accessPage(
  rest: RestClient,
  candidates: string[],
  limit: number,
): Promise<{ namespaces: NamespaceAccess[]; continue?: string }> {
  const clusterWide = await clusterWideKinds(rest);
  const namespaces: NamespaceAccess[] = [];
  let checked = 0;
  while (namespaces.length < limit && checked < candidates.length) {
    const batch = candidates.slice(checked, checked + limit - namespaces.length);
    checked += batch.length;
    namespaces.push(...(await accessOf(rest, batch, clusterWide)));
  }
  const last = namespaces.at(-1)?.name;
  return { namespaces, ...(last && checked < candidates.length ? { continue: last } : {}) };
}

export interface NamespaceRouteOptions {
  /** The server's own namespace: always a candidate. */
  namespace: string;
}

export async function namespaceRoutes(app: FastifyInstance, options: NamespaceRouteOptions): Promise<void> {
  app.get<{ Querystring: Static<typeof NamespacesQuery> }>(
    "/namespaces",
    {
      schema: {
        tags: ["namespaces"],
        summary:
          "The namespaces where the caller may list ImageBuilds, Pipelines, Runs or Providers, a page at a time (limit, continue)",
        querystring: NamespacesQuery,
        response: { 200: NamespacesView, ...errorResponses(400, 401, 502) },
      },
    },
    async (request) => {
      const candidates = candidateNamespaces({
        listed: await listedNamespaces(request.rest),
        username: request.user.username,
        configured: options.namespace,
        requested: request.query.include ?? [],
      });
      const after = candidatesAfter(candidates, request.query.continue);
      return accessPage(request.rest, after, request.query.limit ?? defaultPageSize);
    },
  );
}
