/**
 * Read endpoints for the UI (mounted under /api/v1 by `slipway server`): list and get Pipelines,
 * Runs and RunConfigurations of a namespace, read from the Kubernetes API as the caller (request.kube).
 */
import { CustomObjectsApi, type KubeConfig, type V1ObjectMeta } from "@kubernetes/client-node";
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { Kind } from "../../apis/kind.ts";
import { PipelineKind, RunConfigurationKind, RunKind } from "../../apis/pipelines/index.ts";
import { errorResponses, notFoundAs } from "../errors.ts";
import { NamespaceParams, ObjectParams } from "../params.ts";
import { resourceView } from "../resource-view.ts";

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

const objects = (kube: KubeConfig) => kube.makeApiClient(CustomObjectsApi);

function readRoutes(app: FastifyInstance, kind: Kind) {
  const coordinates = { group: kind.group, version: kind.version, plural: kind.plural };
  const tags = ["pipelines"];
  app.get<{ Params: Static<typeof NamespaceParams> }>(
    `/namespaces/:namespace/${kind.plural}`,
    {
      schema: {
        summary: `List the ${kind.kind}s of a namespace`,
        tags,
        params: NamespaceParams,
        response: { 200: Type.Object({ items: Type.Array(ResourceView) }), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const list = (await objects(request.kube).listNamespacedCustomObject({
        ...coordinates,
        namespace: request.params.namespace,
      })) as { items: Stored[] };
      return { items: list.items.map(resourceView) };
    },
  );
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
      const object = await objects(request.kube)
        .getNamespacedCustomObject({ ...coordinates, namespace, name })
        .catch(notFoundAs(`${kind.kind} ${namespace}/${name}`));
      return resourceView(object as Stored);
    },
  );
}

export async function pipelineRoutes(app: FastifyInstance): Promise<void> {
  for (const kind of [PipelineKind, RunKind, RunConfigurationKind]) readRoutes(app, kind);
}
