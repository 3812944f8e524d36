/** `POST /platform/update`: moves the Platform to another release, by the rule `slipway update` follows. */
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { PlatformResource } from "../../apis/platform/platform.ts";
import { Version } from "../../apis/platform/schemas.ts";
import { operatorClusterNetworks } from "../../bundle/operator-environment.ts";
import { previewPlatformChange } from "../../platform/update-dry-run.ts";
import {
  acknowledgeGates,
  checkUpdate,
  type ReleaseCatalog,
  requestedVersion,
  type UpdateDecision,
} from "../../platform/version-change.ts";
import { HttpError } from "../errors.ts";
import { type PlatformKey, setPlatformVersion } from "./platforms.ts";
import { PlatformView, platformView } from "./view.ts";

export const UpdateBody = Type.Object(
  {
    version: { ...Version, description: "The release to move to; must be in the release catalog" },
    force: Type.Optional(Type.Boolean({ default: false, description: "Allow a downgrade" })),
    acknowledge: Type.Optional(
      Type.Array(Type.String({ maxLength: 63 }), {
        maxItems: 32,
        description:
          "Gates of the release (a data migration, a breaking change) to acknowledge so the update may start",
      }),
    ),
  },
  { additionalProperties: false },
);

export const UpdateAnswer = Type.Object({
  changed: Type.Boolean(),
  from: Type.Optional(Type.String()),
  to: Type.String(),
  platform: PlatformView,
});

const FieldChangeView = Type.Object({
  path: Type.String(),
  before: Type.Optional(Type.Unknown()),
  after: Type.Optional(Type.Unknown()),
});

/** `UpdatePreview` (src/platform/update-preview.ts): per component, what the update would do. */
export const UpdatePreviewAnswer = Type.Object({
  platform: Type.String(),
  namespace: Type.String(),
  from: Type.Optional(Type.String()),
  to: Type.String(),
  components: Type.Array(
    Type.Object({
      component: Type.String(),
      objectName: Type.String(),
      unchanged: Type.Integer({ description: "How many of its objects the update leaves as they are" }),
      objects: Type.Array(
        Type.Object({
          kind: Type.String(),
          name: Type.String(),
          action: Type.Union(
            ["change", "create", "prune", "conflict", "fail"].map((action) => Type.Literal(action)),
          ),
          changes: Type.Optional(Type.Array(FieldChangeView)),
          fields: Type.Optional(Type.Array(Type.String(), { description: "The immutable fields changed" })),
          resolution: Type.Optional(Type.String({ description: "What the update does about it" })),
          resolved: Type.Optional(
            Type.Boolean({
              description:
                "A conflict: true when the update resolves it (recreates the workload), false when it will fail",
            }),
          ),
          message: Type.Optional(Type.String()),
        }),
      ),
    }),
  ),
});

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

/** The Platform and the update its body asks for, unless refused (a 4xx naming why). */
async function allowedUpdate(
  request: FastifyRequest<{ Body: Static<typeof UpdateBody> }>,
  releases: ReleaseCatalog,
  read: (request: FastifyRequest) => Promise<PlatformResource>,
) {
  const platform = await read(request);
  const { version, force = false } = request.body;
  const decision = checkUpdate(platform.status?.version, requestedVersion(platform), version, {
    force,
    catalog: releases,
  });
  if (decision.action === "refuse") throw refusal(decision);
  return { platform, decision };
}

/**
 * The dry-run handler: 200 with what updating to the version would change, as the caller (a dry run
 * is authorized like the writes it stands for); refused as the update itself would be.
 */
export function platformUpdatePreviewHandler(
  key: PlatformKey,
  releases: ReleaseCatalog,
  read: (request: FastifyRequest) => Promise<PlatformResource>,
) {
  return async (request: FastifyRequest<{ Body: Static<typeof UpdateBody> }>) => {
    const { decision } = await allowedUpdate(request, releases, read);
    const to = decision.action === "update" ? decision.to : decision.version;
    const clusterNetworks = await operatorClusterNetworks(request.rest, key.namespace);
    return await previewPlatformChange(
      request.rest,
      key,
      { version: to },
      { fieldManager: "slipway-server", clusterNetworks },
    );
  };
}

/**
 * The handler: 202 with the updated view, 200 when the version was already asked for and nothing
 * new is acknowledged; 400 naming body.acknowledge for a gate the release does not declare.
 */
export function platformUpdateHandler(
  key: PlatformKey,
  releases: ReleaseCatalog,
  read: (request: FastifyRequest) => Promise<PlatformResource>,
) {
  return async (request: FastifyRequest<{ Body: Static<typeof UpdateBody> }>, reply: FastifyReply) => {
    const { platform, decision } = await allowedUpdate(request, releases, read);
    const { acknowledge } = request.body;
    const to = decision.action === "update" ? decision.to : decision.version;
    const gates = acknowledge?.length
      ? acknowledgeGates(to, acknowledge, platform.spec.acknowledgedGates, "body.acknowledge", releases)
      : undefined;
    if (gates && "problem" in gates) throw new HttpError(400, gates.problem, "body.acknowledge");
    const known = platform.spec.acknowledgedGates ?? [];
    // only gates not acknowledged yet change the spec
    const acknowledgedGates =
      gates && gates.acknowledged.length > known.length ? gates.acknowledged : undefined;
    const resourceVersion = platform.metadata.resourceVersion ?? "";
    if (decision.action === "unchanged" && !acknowledgedGates) {
      return reply.status(200).send({ changed: false, to, platform: platformView(platform) });
    }
    if (decision.action === "unchanged") {
      const updated = await setPlatformVersion(request.rest, key, resourceVersion, to, acknowledgedGates);
      request.log.info({ user: request.user.username, to, acknowledgedGates }, "platform gates acknowledged");
      return reply.status(202).send({ changed: true, to, platform: platformView(updated) });
    }
    const updated = await setPlatformVersion(request.rest, key, resourceVersion, to, acknowledgedGates);
    const { from } = decision;
    request.log.info({ user: request.user.username, from, to }, "platform update started");
    return reply.status(202).send({ changed: true, from, to, platform: platformView(updated) });
  };
}
