import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { Version } from "../../apis/platform/schemas.ts";
import { checkUpdate, type ReleaseCatalog, type UpdateDecision } from "../../platform/version-change.ts";
import { errorResponses, HttpError, notFoundAs } from "../errors.ts";
import { openEventStream } from "../sse.ts";
import { followPlatform } from "./follow.ts";
import { type PlatformKey, readPlatform, setPlatformVersion } from "./platforms.ts";
import { PlatformView, platformChanges, platformView } from "./view.ts";

export interface PlatformRouteOptions {
  platform: PlatformKey;
  releases: ReleaseCatalog;
  heartbeatMs?: number;
}

const UpdateBody = Type.Object(
  {
    version: { ...Version, description: "The release to move to; must be in the release catalog" },
    force: Type.Optional(Type.Boolean({ default: false, description: "Allow a downgrade" })),
  },
  { additionalProperties: false },
);

const VersionsView = Type.Object({
  running: Type.Optional(Type.String()),
  desired: Type.Optional(Type.String()),
  versions: Type.Array(
    Type.Object({ version: Type.String(), current: Type.Boolean(), upgrade: Type.Boolean() }),
  ),
});

const UpdateAnswer = Type.Object({
  changed: Type.Boolean(),
  from: Type.Optional(Type.String()),
  to: Type.String(),
  platform: PlatformView,
});

const errors = errorResponses(400, 401, 403, 404, 409, 502);

/** An unknown version is a bad request (400); a downgrade conflicts with what runs or was asked for (409). */
function refusal(decision: Extract<UpdateDecision, { action: "refuse" }>): HttpError {
  if (decision.reason === "unknown-version") {
    const known = decision.known.join(", ");
    return new HttpError(
      400,
      `unknown version ${decision.target}: the release catalog has ${known}`,
      "body.version",
    );
  }
  const message = `${decision.target} is a downgrade from ${decision.from}: refused unless forced (force: true)`;
  return new HttpError(409, message, "body.version");
}

export async function platformRoutes(app: FastifyInstance, options: PlatformRouteOptions): Promise<void> {
  const { platform: key, releases } = options;
  const read = (request: { kube: Parameters<typeof readPlatform>[0] }) =>
    readPlatform(request.kube, key).catch(notFoundAs(`platform ${key.namespace}/${key.name}`));

  app.get(
    "/platform",
    {
      schema: {
        tags: ["platform"],
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
        tags: ["platform"],
        summary: "The versions the release catalog offers",
        response: { 200: VersionsView, ...errors },
      },
    },
    async (request) => {
      const platform = await read(request);
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
    },
  );

  app.post<{ Body: Static<typeof UpdateBody> }>(
    "/platform/update",
    {
      schema: {
        tags: ["platform"],
        summary: "Moves the Platform to another release (as `slipway update` does)",
        body: UpdateBody,
        response: { 202: UpdateAnswer, 200: UpdateAnswer, ...errors },
      },
    },
    async (request, reply) => {
      const platform = await read(request);
      const decision = checkUpdate(platform.status?.version, platform.spec.version, request.body.version, {
        force: request.body.force ?? false,
        catalog: releases,
      });
      if (decision.action === "refuse") throw refusal(decision);
      if (decision.action === "unchanged") {
        return reply
          .status(200)
          .send({ changed: false, to: decision.version, platform: platformView(platform) });
      }
      const resourceVersion = platform.metadata.resourceVersion ?? "";
      const updated = await setPlatformVersion(request.kube, key, resourceVersion, decision.to);
      request.log.info(
        { user: request.user.username, from: decision.from, to: decision.to },
        "platform update started",
      );
      return reply
        .status(202)
        .send({ changed: true, from: decision.from, to: decision.to, platform: platformView(updated) });
    },
  );

  app.get(
    "/platform/events",
    {
      schema: {
        tags: ["platform"],
        summary: "Server-sent events: `platform` (full view), `phase`, `component`, `absent`",
        produces: ["text/event-stream"],
        response: errors,
      },
    },
    async (request, reply) => {
      const controller = new AbortController();
      let previous: PlatformView | undefined;
      let stream: ReturnType<typeof openEventStream> | undefined;
      const pending: (() => void)[] = [];
      const publish = (platform: Parameters<typeof platformView>[0] | undefined) => {
        const send = () => {
          if (!stream) return;
          if (!platform) {
            if (previous) stream.send("absent", { name: key.name, namespace: key.namespace });
            previous = undefined;
            return;
          }
          const next = platformView(platform);
          const changes = platformChanges(previous, next);
          previous = next;
          if (changes.length === 0) return;
          stream.send("platform", next);
          for (const change of changes) stream.send(change.event, change.data);
        };
        if (stream) send();
        else pending.push(send);
      };
      // The first list runs before the response is taken over, so a 403/404 is still a JSON answer.
      await followPlatform(request.kube, key, {
        onState: publish,
        onFailure: (error) => {
          request.log.warn({ err: error }, "platform watch failed; closing the event stream");
          stream?.close();
        },
        signal: controller.signal,
        log: request.log,
      }).catch((error: unknown) => {
        controller.abort();
        throw error;
      });
      stream = openEventStream(request, reply, options.heartbeatMs);
      stream.onClose(() => controller.abort());
      for (const send of pending.splice(0)) send();
      if (!previous) stream.send("absent", { name: key.name, namespace: key.namespace });
    },
  );
}
