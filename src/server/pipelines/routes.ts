/**
 * REST API of the pipeline resources (mounted under /api/v1 by `slipway server`): list and get
 * Pipelines, Runs, RunConfigurations and Providers of a namespace, their event streams, a Pipeline's
 * version history, starting a Run from a Pipeline and the resources using each Provider — all
 * acting on the Kubernetes API as the caller (request.rest).
 */
import type { V1ObjectMeta } from "@kubernetes/client-node";
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { type Kind, resourceTypeOf } from "../../apis/kind.ts";
import {
  ExperimentKind,
  type Pipeline,
  PipelineKind,
  ProviderKind,
  RunConfigurationKind,
  RunKind,
  RunScheduleKind,
} from "../../apis/pipelines/index.ts";
import { resourcePath } from "../../kube/keys.ts";
import type { RestClient } from "../../kube/rest.ts";
import type { KubeObject } from "../../kube/types.ts";
import { readObject, readPage } from "../caller-reads.ts";
import { errorResponses, HttpError, notFoundAs, upstreamStatus } from "../errors.ts";
import { registerLiveRoute } from "../live/events.ts";
import { maxPageSize, PageFields, PageQuery } from "../paging.ts";
import { NamespaceParams, ObjectParams } from "../params.ts";
import { resourceView } from "../resource-view.ts";
import { HistoryView, readHistory } from "./history.ts";
import { byKindThenName, ProviderUser, providerUsers, type UsesProvider } from "./provider-usage.ts";
import { CreateRunBody, pipelineName, runForPipeline } from "./run-create.ts";
import { stepLogsRoute } from "./step-logs.ts";

/** One resource as the UI shows it: identity, spec and status as the API server has them. */
export const ResourceView = Type.Object({
  name: Type.String(),
  namespace: Type.String(),
  createdAt: Type.Optional(Type.String()),
  spec: Type.Unknown(),
  status: Type.Optional(Type.Unknown()),
});

interface Stored {
  metadata: V1ObjectMeta;
  spec: unknown;
  status?: unknown;
}

export interface PipelineRouteOptions {
  heartbeatMs?: number;
}

const tags = ["pipelines"];

/** One page of `kind`'s objects of `namespace`, as the API server answers `page`. */
const pageOfKind = (rest: RestClient, kind: Kind, namespace: string, page: PageQuery) =>
  readPage<Stored>(rest, resourceTypeOf(kind), namespace, page);

async function readOne(rest: RestClient, kind: Kind, namespace: string, name: string): Promise<Stored> {
  return readObject<Stored>(rest, resourceTypeOf(kind), namespace, name).catch(
    notFoundAs(`${kind.kind} ${namespace}/${name}`),
  );
}

function listRoute(app: FastifyInstance, kind: Kind) {
  app.get<{ Params: Static<typeof NamespaceParams>; Querystring: PageQuery }>(
    `/namespaces/:namespace/${kind.plural}`,
    {
      schema: {
        summary: `List the ${kind.kind}s of a namespace, a page at a time (limit, continue)`,
        tags,
        params: NamespaceParams,
        querystring: PageQuery,
        response: {
          200: Type.Object({ items: Type.Array(ResourceView), ...PageFields }),
          ...errorResponses(400, 401, 403, 410),
        },
      },
    },
    async (request) => {
      const page = await pageOfKind(request.rest, kind, request.params.namespace, request.query);
      return { ...page, items: page.items.map(resourceView) };
    },
  );
}

/** Get one object and the event stream of the namespace's objects (or of one, `?name=`). */
function readRoutes(app: FastifyInstance, kind: Kind, options: PipelineRouteOptions) {
  app.get<{ Params: Static<typeof ObjectParams> }>(
    `/namespaces/:namespace/${kind.plural}/:name`,
    {
      schema: {
        summary: `Get one ${kind.kind}`,
        tags,
        params: ObjectParams,
        response: { 200: ResourceView, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { namespace, name } = request.params;
      return resourceView(await readOne(request.rest, kind, namespace, name));
    },
  );
  registerLiveRoute(app, {
    path: `/watch/namespaces/:namespace/${kind.plural}`,
    type: resourceTypeOf(kind),
    view: (object: KubeObject) => resourceView(object as unknown as Stored),
    tags,
    ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
  });
}

function historyRoute(app: FastifyInstance) {
  app.get<{ Params: Static<typeof ObjectParams> }>(
    "/namespaces/:namespace/pipelines/:name/history",
    {
      schema: {
        summary: "The versions a Pipeline has had with its backend (its status and its Events)",
        tags,
        params: ObjectParams,
        response: { 200: HistoryView, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { namespace, name } = request.params;
      const pipeline = (await readOne(request.rest, PipelineKind, namespace, name)) as Stored & {
        status?: { version?: string; state?: string };
      };
      const uid = pipeline.metadata.uid ?? "";
      return readHistory(request.rest, { kind: PipelineKind.kind, namespace, name, uid, ...pipeline });
    },
  );
}

function createRunRoute(app: FastifyInstance) {
  app.post<{ Params: Static<typeof NamespaceParams>; Body: CreateRunBody }>(
    "/namespaces/:namespace/runs",
    {
      schema: {
        summary: "Start a Run of a Pipeline (on the Pipeline's Provider) with these parameters",
        tags,
        params: NamespaceParams,
        body: CreateRunBody,
        response: { 201: ResourceView, ...errorResponses(400, 401, 403, 409, 422, 502) },
      },
    },
    async (request, reply) => {
      const { namespace } = request.params;
      const name = pipelineName(request.body.pipeline);
      const pipeline = (await readOne(request.rest, PipelineKind, namespace, name).catch((error) => {
        if (error instanceof HttpError && error.statusCode === 404)
          throw new HttpError(400, `body.pipeline: ${error.message}`, "body.pipeline");
        throw error;
      })) as unknown as Pipeline;
      const body = runForPipeline(pipeline, request.body, namespace);
      const created = await request.rest.request<Stored>(
        "POST",
        resourcePath(resourceTypeOf(RunKind), { namespace }),
        {
          body,
        },
      );
      return reply.status(201).send(resourceView(created as Stored));
    },
  );
}

const ProviderView = Type.Composite([
  ResourceView,
  Type.Object({ usedBy: Type.Array(ProviderUser, { description: "Resources of this namespace using it" }) }),
]);
const ProvidersView = Type.Object({
  items: Type.Array(ProviderView),
  ...PageFields,
  hiddenKinds: Type.Array(Type.String(), {
    description: "Kinds the caller may not list: their use of the Providers is not counted",
  }),
});
const usingKinds = [PipelineKind, RunKind, RunConfigurationKind, RunScheduleKind, ExperimentKind];

/**
 * Who uses `providers` (`namespace/name`, a page's), kind by kind: each kind is read in pages of
 * `maxPageSize` and only the users of those Providers are kept, so the server holds one page of a
 * kind at a time however many Runs the namespace has. Without Providers one object of each kind is
 * asked for, to learn which kinds the caller may not list (`hiddenKinds`).
 */
async function providerUsersIn(rest: RestClient, namespace: string, providers: Set<string>) {
  const hiddenKinds: string[] = [];
  const users = new Map<string, ProviderUser[]>();
  const usersOf = async (kind: Kind) => {
    let next: string | undefined;
    do {
      const page = await pageOfKind(rest, kind, namespace, {
        limit: providers.size ? maxPageSize : 1,
        ...(next ? { continue: next } : {}),
      });
      const named = page.items.map((item) => ({ ...item, kind: kind.kind }) as unknown as UsesProvider);
      for (const [provider, list] of providerUsers(named, providers)) {
        const kept = users.get(provider) ?? [];
        kept.push(...list);
        users.set(provider, kept);
      }
      next = providers.size ? page.continue : undefined;
    } while (next);
  };
  await Promise.all(
    usingKinds.map((kind) =>
      usersOf(kind).catch((error: unknown) => {
        if (upstreamStatus(error) !== 403) throw error;
        hiddenKinds.push(kind.plural);
      }),
    ),
  );
  for (const list of users.values()) list.sort(byKindThenName);
  return { users, hiddenKinds: hiddenKinds.sort() };
}

function providersRoute(app: FastifyInstance) {
  app.get<{ Params: Static<typeof NamespaceParams>; Querystring: PageQuery }>(
    "/namespaces/:namespace/providers",
    {
      schema: {
        summary:
          "List the Providers of a namespace with the resources using each, a page at a time (limit, continue)",
        tags,
        params: NamespaceParams,
        querystring: PageQuery,
        response: { 200: ProvidersView, ...errorResponses(400, 401, 403, 410) },
      },
    },
    async (request) => {
      const { namespace } = request.params;
      const providers = await pageOfKind(request.rest, ProviderKind, namespace, request.query);
      const onPage = new Set(providers.items.map((provider) => `${namespace}/${provider.metadata.name}`));
      const usage = await providerUsersIn(request.rest, namespace, onPage);
      const items = providers.items.map((provider) => ({
        ...resourceView(provider),
        usedBy: usage.users.get(`${namespace}/${provider.metadata.name}`) ?? [],
      }));
      return { ...providers, items, hiddenKinds: usage.hiddenKinds };
    },
  );
}

export async function pipelineRoutes(
  app: FastifyInstance,
  options: PipelineRouteOptions = {},
): Promise<void> {
  for (const kind of [PipelineKind, RunKind, RunConfigurationKind]) listRoute(app, kind);
  providersRoute(app);
  for (const kind of [PipelineKind, RunKind, RunConfigurationKind, ProviderKind])
    readRoutes(app, kind, options);
  historyRoute(app);
  createRunRoute(app);
  stepLogsRoute(app);
}
