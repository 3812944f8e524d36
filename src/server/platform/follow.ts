import type { FastifyBaseLogger } from "fastify";
import type { PlatformResource } from "../../apis/platform/platform.ts";
import type { RestClient } from "../../kube/rest.ts";
import { types } from "../../platform/resource-types.ts";
import { followResources } from "../live/follow.ts";
import type { PlatformKey } from "./platforms.ts";

export interface FollowOptions {
  /** Called with the Platform after every change; undefined when it does not exist (or was deleted). */
  onState: (platform: PlatformResource | undefined) => void;
  /** A failure that ended the follow (e.g. the caller lost access); the stream should close. */
  onFailure: (error: unknown) => void;
  signal: AbortSignal;
  log: FastifyBaseLogger;
}

/**
 * Follows one Platform as the caller (followResources on a field selector for its name): its state
 * once the first list is in, then after every change. The first list's error rejects.
 */
export async function followPlatform(
  rest: RestClient,
  key: PlatformKey,
  options: FollowOptions,
): Promise<void> {
  const { onState } = options;
  const scope = {
    type: types.platform,
    namespace: key.namespace,
    fieldSelector: `metadata.name=${key.name}`,
  };
  await followResources(rest, scope, {
    snapshot: (known) => onState(known[0] as PlatformResource | undefined),
    upsert: (platform) => onState(platform as PlatformResource),
    delete: () => onState(undefined),
    onFailure: options.onFailure,
    signal: options.signal,
    log: options.log,
  });
}
