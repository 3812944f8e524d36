import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { PlatformResource } from "../../apis/platform/platform.ts";
import type { ReleaseCatalog } from "../../platform/version-change.ts";
import { errorResponses, notFoundAs } from "../errors.ts";
import { platformEventsHandler } from "./events.ts";
import { type PlatformKey, readPlatform } from "./platforms.ts";
import {
  platformUpdateHandler,
  platformUpdatePreviewHandler,
  UpdateAnswer,
  UpdateBody,
  UpdatePreviewAnswer,
} from "./update.ts";
import { PlatformView, platformView } from "./view.ts";

export interface PlatformRouteOptions {
  platform: PlatformKey;
  releases: ReleaseCatalog;
  heartbeatMs?: number;
}

const VersionsView = Type.Object({
  running: Type.Optional(Type.String()),
  desired: Type.Optional(Type.String()),
  versions: Type.Array(
    Type.Object({ version: Type.String(), current: Type.Boolean(), upgrade: Type.Boolean() }),
  ),
});

const errors = errorResponses(400, 401, 403, 404, 409, 502);

/** The catalog's versions, oldest first, marked against what runs (or, before anything runs, was asked for). */
export function versionsView(platform: PlatformResource, releases: ReleaseCatalog) {
  const running = platform.status?.version;
  const desired = platform.spec.version;
  const base = running ?? desired;
  return {
    running,
    desired,
    versions: [...releases.versions].sort(releases.compare).map((version) => ({
      version,
      current: version === base,
      upgrade: base === undefined || releases.compare(version, base) > 0,
    })),
  };
}

export async function platformRoutes(app: FastifyInstance, options: PlatformRouteOptions): Promise<void> {
  const { platform: key, releases } = options;
  const read = (request: { rest: Parameters<typeof readPlatform>[0] }) =>
    readPlatform(request.rest, key).catch(notFoundAs(`platform ${key.namespace}/${key.name}`));
  const tags = ["platform"];

  app.get(
    "/platform",
    {
      schema: {
        tags,
        summary: "The Platform and its components",
        response: { 200: PlatformView, ...errors },
      },
    },
    async (request) => platformView(await read(request)),
  );
  app.get(
    "/platform/versions",
    {
      schema: {
        tags,
        summary: "The versions the release catalog offers",
        response: { 200: VersionsView, ...errors },
      },
    },
    async (request) => versionsView(await read(request), releases),
  );
  app.post(
    "/platform/update",
    {
      schema: {
        tags,
        summary: "Moves the Platform to another release (as `slipway update` does)",
        body: UpdateBody,
        response: { 202: UpdateAnswer, 200: UpdateAnswer, ...errors },
      },
    },
    platformUpdateHandler(key, releases, read),
  );
  app.post(
    "/platform/update/dry-run",
    {
      schema: {
        tags,
        summary:
          "What moving the Platform to another release would change, per component (as `slipway update --dry-run`); applies nothing",
        body: UpdateBody,
        response: { 200: UpdatePreviewAnswer, ...errors, ...errorResponses(422) },
      },
    },
    platformUpdatePreviewHandler(key, releases, read),
  );
  app.get(
    "/platform/events",
    {
      schema: {
        tags,
        summary: "Server-sent events: `platform` (full view), `phase`, `component`, `absent`",
        produces: ["text/event-stream"],
        response: { ...errors, ...errorResponses(429) },
      },
    },
    platformEventsHandler(key, options.heartbeatMs),
  );
}
