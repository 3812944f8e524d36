/**
 * REST API of image builds (mounted under /api/v1 by `slipway server`): create, get, list, delete and
 * logs of ImageBuild resources, acting on the Kubernetes API as the caller (request.rest) — the
 * resources are the source of truth; nothing here bypasses them.
 */
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import {
  type ImageBuild,
  ImageBuildKind,
  ImageBuildSpec,
  ImageBuildStatus,
} from "../../apis/builds/imagebuild.ts";
import { types } from "../../builds/resource-types.ts";
import { resourcePath } from "../../kube/keys.ts";
import type { RestClient } from "../../kube/rest.ts";
import type { KubeObject } from "../../kube/types.ts";
import { readObject, readPage } from "../caller-reads.ts";
import { errorResponses, HttpError, notFoundAs } from "../errors.ts";
import { registerLiveRoute } from "../live/events.ts";
import { PageFields, PageQuery } from "../paging.ts";
import { Name, NamespaceParams, ObjectParams } from "../params.ts";
import { containerLogTail, LogsView } from "../pod-log.ts";
import { resourceView } from "../resource-view.ts";
import { followedEventStream } from "../sse.ts";
import { buildContainer, buildContainerNames, buildPod, followPodLog } from "./build-log.ts";

/** The CRD's schema without its Kubernetes extensions (`x-kubernetes-*`), which Ajv refuses; the API server still applies them. */
function withoutKubernetesExtensions<T>(schema: T): T {
  return JSON.parse(
    JSON.stringify(schema, (key, value) => (key.startsWith("x-kubernetes-") ? undefined : value)),
  );
}
const Spec = withoutKubernetesExtensions(ImageBuildSpec);
const Status = withoutKubernetesExtensions(ImageBuildStatus);

const CreateBody = Type.Object(
  { name: { ...Name, description: "Name of the ImageBuild resource" }, spec: Spec },
  { additionalProperties: false },
);

export const ImageBuildView = Type.Object({
  name: Type.String(),
  namespace: Type.String(),
  uid: Type.Optional(Type.String()),
  createdAt: Type.Optional(Type.String()),
  spec: Spec,
  status: Type.Optional(Status),
});
const ListView = Type.Object({ items: Type.Array(ImageBuildView), ...PageFields });
const errors = errorResponses(400, 401, 403, 404, 409, 422, 502);

function view(build: ImageBuild): Static<typeof ImageBuildView> {
  return { ...resourceView(build), ...(build.metadata.uid ? { uid: build.metadata.uid } : {}) };
}

const notFound = (namespace: string, name: string) => notFoundAs(`ImageBuild ${namespace}/${name}`);

/** The rule the CRD states in CEL, checked here too so the answer is a 400 naming the field. */
function checkBuildArgs(spec: Static<typeof ImageBuildSpec>) {
  for (const [index, arg] of (spec.buildArgs ?? []).entries()) {
    if ((arg.value === undefined) === (arg.valueFrom === undefined)) {
      const field = `body.spec.buildArgs.${index}`;
      throw new HttpError(400, `${field} must have exactly one of value or valueFrom`, field);
    }
  }
}

/**
 * The last 1000 lines of the build container (buildContainer: Kaniko's or buildah's) of the newest
 * pod of the build's Job; empty while that container has not started.
 */
async function buildLogs(rest: RestClient, build: ImageBuild): Promise<Static<typeof LogsView>> {
  const pod = await buildPod(rest, build);
  const { name, namespace } = pod.metadata;
  const container = buildContainer(pod);
  if (!container)
    throw new HttpError(
      404,
      `the build pod ${namespace}/${name} has no build container (one of ${buildContainerNames.join(", ")})`,
    );
  return containerLogTail(rest, pod, container);
}

const LogsQuery = Type.Object(
  {
    follow: Type.Optional(
      Type.Boolean({
        description:
          "Stream the log as server-sent events while the build runs: start {pod, containers, build}, container {name}, log {text}, end {}",
      }),
    ),
  },
  { additionalProperties: false },
);

export interface BuildRouteOptions {
  heartbeatMs?: number;
}

export async function imageBuildRoutes(app: FastifyInstance, options: BuildRouteOptions = {}): Promise<void> {
  const base = "/namespaces/:namespace/imagebuilds";
  registerLiveRoute(app, {
    path: "/watch/namespaces/:namespace/imagebuilds",
    type: types.imageBuild,
    view: (object: KubeObject) => view(object as unknown as ImageBuild),
    tags: ["builds"],
    ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
  });

  app.post<{ Params: Static<typeof NamespaceParams>; Body: Static<typeof CreateBody> }>(
    base,
    {
      schema: {
        tags: ["builds"],
        summary: "Create an ImageBuild; the operator builds the image unless it already exists",
        params: NamespaceParams,
        body: CreateBody,
        response: { 202: ImageBuildView, ...errors },
      },
    },
    async (request, reply) => {
      const { namespace } = request.params;
      checkBuildArgs(request.body.spec);
      const created = (await request.rest.request("POST", resourcePath(types.imageBuild, { namespace }), {
        body: {
          apiVersion: ImageBuildKind.apiVersion,
          kind: ImageBuildKind.kind,
          metadata: { name: request.body.name, namespace },
          spec: request.body.spec,
        },
      })) as ImageBuild;
      return reply.status(202).send(view(created));
    },
  );

  app.get<{ Params: Static<typeof NamespaceParams>; Querystring: PageQuery }>(
    base,
    {
      schema: {
        tags: ["builds"],
        summary: "List ImageBuilds, a page at a time (limit, continue)",
        params: NamespaceParams,
        querystring: PageQuery,
        response: { 200: ListView, ...errors, ...errorResponses(410) },
      },
    },
    async (request) => {
      const page = await readPage<ImageBuild>(
        request.rest,
        types.imageBuild,
        request.params.namespace,
        request.query,
      );
      return { ...page, items: page.items.map(view) };
    },
  );

  const read = (rest: RestClient, namespace: string, name: string) =>
    readObject<ImageBuild>(rest, types.imageBuild, namespace, name).catch(notFound(namespace, name));

  app.get<{ Params: Static<typeof ObjectParams> }>(
    `${base}/:name`,
    {
      schema: {
        tags: ["builds"],
        summary: "Get an ImageBuild",
        params: ObjectParams,
        response: { 200: ImageBuildView, ...errors },
      },
    },
    async (request) => view(await read(request.rest, request.params.namespace, request.params.name)),
  );

  app.delete<{ Params: Static<typeof ObjectParams> }>(
    `${base}/:name`,
    {
      schema: {
        tags: ["builds"],
        summary: "Delete an ImageBuild and its build Job (never the pushed image)",
        params: ObjectParams,
        response: { 202: Type.Object({ deleted: Type.String() }), ...errors },
      },
    },
    async (request, reply) => {
      const { namespace, name } = request.params;
      await request.rest
        .request("DELETE", resourcePath(types.imageBuild, { namespace, name }), {
          body: { apiVersion: "v1", kind: "DeleteOptions", propagationPolicy: "Background" },
        })
        .catch(notFound(namespace, name));
      return reply.status(202).send({ deleted: `${namespace}/${name}` });
    },
  );

  app.get<{ Params: Static<typeof ObjectParams>; Querystring: Static<typeof LogsQuery> }>(
    `${base}/:name/logs`,
    {
      schema: {
        tags: ["builds"],
        summary:
          "Logs of the build's build container (Kaniko's or buildah's; its latest pod, in the namespace of its Job); with follow=true every container's log streamed as it builds",
        params: ObjectParams,
        querystring: LogsQuery,
        produces: ["application/json", "text/event-stream"],
        response: { 200: LogsView, ...errors, ...errorResponses(429) },
      },
    },
    async (request, reply) => {
      const { namespace, name } = request.params;
      const build = await read(request.rest, namespace, name);
      if (!request.query.follow) return buildLogs(request.rest, build);
      await followedEventStream(request, reply, options.heartbeatMs, async (feed) => {
        const pod = await buildPod(request.rest, build);
        void followPodLog(request.rest, pod, feed, request.log).catch((error: unknown) => {
          request.log.warn({ err: error }, "following the build log failed; closing the stream");
          feed.close();
        });
      });
    },
  );
}
