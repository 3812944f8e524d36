/** `GET …/events`: the objects of one type in a namespace (or one of them) as server-sent events. */
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { KubeObject, ResourceType } from "../../kube/types.ts";
import { errorResponses } from "../errors.ts";
import { Name, NamespaceParams } from "../params.ts";
import { followedEventStream } from "../sse.ts";
import { followChanges, followResources } from "./follow.ts";

export const EventsQuery = Type.Object(
  {
    name: Type.Optional({ ...Name, description: "Follow only the object of this name" }),
    resourceVersion: Type.Optional(
      Type.String({
        pattern: "^[0-9]+$",
        description:
          "Only the changes after this resourceVersion (a list page's): no snapshot; `expired` when the API server no longer has them (list again)",
      }),
    ),
  },
  { additionalProperties: false },
);

type EventsRequest = FastifyRequest<{
  Params: Static<typeof NamespaceParams>;
  Querystring: Static<typeof EventsQuery>;
}>;

/**
 * The handler of an event stream of `type`: `snapshot` ({items}: every object, first), then
 * `upsert` (an object's new view) and `delete` ({name}). The first list runs before the response
 * is taken over, so a 403 is still a JSON answer. With `resourceVersion` (a list page's), no list:
 * `watching` once the watch is open, then `upsert` and `delete`, and `expired` (the stream ends)
 * when the API server no longer has the changes since then.
 */
export function resourceEventsHandler<View>(
  type: ResourceType,
  view: (object: KubeObject) => View,
  heartbeatMs: number | undefined,
) {
  return async (request: EventsRequest, reply: FastifyReply): Promise<void> => {
    const { namespace } = request.params;
    const { name, resourceVersion } = request.query;
    const onFailure = (feed: { close(): void }) => (error: unknown) => {
      request.log.warn({ err: error, plural: type.plural }, "watch failed; closing the event stream");
      feed.close();
    };
    if (resourceVersion) {
      // a paged list's changes: the caller holds its pages; the server holds no copy of the namespace
      await followedEventStream(request, reply, heartbeatMs, async (feed) => {
        await followChanges(
          request.rest,
          { type, namespace, ...(name ? { fieldSelector: `metadata.name=${name}` } : {}) },
          resourceVersion,
          {
            upsert: (object) => feed.send("upsert", view(object)),
            delete: (object) => feed.send("delete", { name: object.metadata?.name ?? "" }),
            expired: () => {
              feed.send("expired", {});
              feed.close();
            },
            onFailure: onFailure(feed),
            signal: feed.signal,
            log: request.log,
          },
        );
        feed.send("watching", { resourceVersion });
      });
      return;
    }
    await followedEventStream(request, reply, heartbeatMs, (feed) =>
      followResources(
        request.rest,
        { type, namespace, ...(name ? { fieldSelector: `metadata.name=${name}` } : {}) },
        {
          snapshot: (objects) => feed.send("snapshot", { items: objects.map(view) }),
          upsert: (object) => feed.send("upsert", view(object)),
          delete: (object) => feed.send("delete", { name: object.metadata?.name ?? "" }),
          onFailure: onFailure(feed),
          signal: feed.signal,
          log: request.log,
        },
      ),
    );
  };
}

export interface LiveRoute<View> {
  /** Relative to the API prefix, e.g. `/namespaces/:namespace/imagebuilds/events`. */
  path: string;
  type: ResourceType;
  view: (object: KubeObject) => View;
  tags: string[];
  heartbeatMs?: number;
}

/** Registers the event stream of one resource type (in the OpenAPI document as text/event-stream). */
export function registerLiveRoute<View>(app: FastifyInstance, route: LiveRoute<View>): void {
  app.get(
    route.path,
    {
      schema: {
        tags: route.tags,
        summary: `Server-sent events of the ${route.type.kind}s of a namespace: snapshot ({items}), upsert (one view), delete ({name}); with resourceVersion: watching, upsert, delete, expired`,
        params: NamespaceParams,
        querystring: EventsQuery,
        produces: ["text/event-stream"],
        response: errorResponses(400, 401, 403, 410, 429),
      },
    },
    resourceEventsHandler(route.type, route.view, route.heartbeatMs),
  );
}
