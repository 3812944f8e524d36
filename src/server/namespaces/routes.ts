/**
 * `GET /namespaces`: the namespaces where the caller may list the UI's resources, as the API server
 * decides for the caller (SelfSubjectAccessReviews with their token) — never the server's identity.
 */
import { AuthorizationV1Api, CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { ImageBuildKind } from "../../apis/builds/imagebuild.ts";
import type { Kind } from "../../apis/kind.ts";
import { PipelineKind, ProviderKind, RunKind } from "../../apis/pipelines/index.ts";
import { errorResponses } from "../errors.ts";
import { Namespace } from "../params.ts";
import { candidateNamespaces, namespaceAccess } from "./candidates.ts";

const listedKinds: Kind[] = [ImageBuildKind, PipelineKind, RunKind, ProviderKind];
const plurals = listedKinds.map((kind) => kind.plural);

const NamespacesQuery = Type.Object(
  {
    include: Type.Optional(
      Type.Array(Namespace, { maxItems: 16, description: "Namespaces to check too (e.g. the page's)" }),
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
});

/** Whether the caller may list `kind` in `namespace` (cluster-wide when undefined). */
async function mayList(kube: KubeConfig, kind: Kind, namespace: string | undefined): Promise<boolean> {
  const review = await kube.makeApiClient(AuthorizationV1Api).createSelfSubjectAccessReview({
    body: {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: {
        resourceAttributes: {
          verb: "list",
          group: kind.group,
          resource: kind.plural,
          ...(namespace ? { namespace } : {}),
        },
      },
    },
  });
  return review.status?.allowed === true;
}

/** The namespaces the caller may list, or undefined when they may not. */
async function listedNamespaces(kube: KubeConfig): Promise<string[] | undefined> {
  try {
    const list = await kube.makeApiClient(CoreV1Api).listNamespace();
    return list.items.map((namespace) => namespace.metadata?.name ?? "");
  } catch (error) {
    if ((error as { code?: number }).code === 403) return undefined;
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

async function accessOf(kube: KubeConfig, candidates: string[]) {
  const wide = await Promise.all(listedKinds.map((kind) => mayList(kube, kind, undefined)));
  const clusterWide = new Set(plurals.filter((_, index) => wide[index]));
  const narrow = listedKinds.filter((kind) => !clusterWide.has(kind.plural));
  const perNamespace = new Map<string, Set<string>>();
  const pairs = candidates.flatMap((namespace) => narrow.map((kind) => ({ namespace, kind })));
  const allowed = await inBatches(pairs, 16, ({ namespace, kind }) => mayList(kube, kind, namespace));
  pairs.forEach(({ namespace, kind }, index) => {
    if (!allowed[index]) return;
    perNamespace.set(namespace, (perNamespace.get(namespace) ?? new Set()).add(kind.plural));
  });
  return namespaceAccess(candidates, plurals, clusterWide, (name) => perNamespace.get(name) ?? new Set());
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
        summary: "The namespaces where the caller may list ImageBuilds, Pipelines, Runs or Providers",
        querystring: NamespacesQuery,
        response: { 200: NamespacesView, ...errorResponses(400, 401, 502) },
      },
    },
    async (request) => {
      const candidates = candidateNamespaces({
        listed: await listedNamespaces(request.kube),
        username: request.user.username,
        configured: options.namespace,
        requested: request.query.include ?? [],
      });
      return { namespaces: await accessOf(request.kube, candidates) };
    },
  );
}
