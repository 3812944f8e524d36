import type { KubeConfig } from "@kubernetes/client-node";
import type { FastifyBaseLogger } from "fastify";
import type { Logger } from "pino";
import type { PlatformResource } from "../../apis/platform/platform.ts";
import { Informer } from "../../kube/informer.ts";
import { RestClient } from "../../kube/rest.ts";
import { types } from "../../platform/resource-types.ts";
import type { PlatformKey } from "./platforms.ts";

export interface FollowOptions {
  /** Called with the Platform after every change; undefined when it does not exist (or was deleted). */
  onState: (platform: PlatformResource | undefined) => void;
  /** A failure that ended the follow (e.g. the caller lost access); the stream should close. */
  onFailure: (error: unknown) => void;
  signal: AbortSignal;
  log: FastifyBaseLogger;
}

/** Failed lists or watches in a row after which the follow ends (the caller's access is gone, say). */
const failuresToGiveUp = 5;

/**
 * Follows one Platform as the caller, with the runtime's informer (list, watch from the list's
 * resourceVersion, resume, relist on 410 Gone) on a field selector for its name. The first list's
 * error rejects (the caller answers it as an HTTP error); later failures back off and retry, and the
 * fifth in a row goes to onFailure.
 */
export async function followPlatform(
  kube: KubeConfig,
  key: PlatformKey,
  options: FollowOptions,
): Promise<void> {
  const { onState, onFailure, signal } = options;
  const rest = new RestClient(kube, { userAgent: "slipway-server" });
  let rejectFirstList: (error: unknown) => void = () => {};
  const firstList = new Promise<never>((_, reject) => {
    rejectFirstList = reject;
  });
  const informer = new Informer({ ...types.platform, fieldSelector: `metadata.name=${key.name}` }, rest, {
    namespaces: [key.namespace],
    log: options.log as Logger,
    minBackoffMs: 400,
    onError: (error, failuresInARow) => {
      if (!informer.synced) rejectFirstList(error);
      else if (failuresInARow >= failuresToGiveUp) onFailure(error);
      else return;
      void stop();
    },
  });
  const stop = () => informer.stop().finally(() => rest.close());
  signal.addEventListener("abort", () => void stop(), { once: true });
  informer.addHandlers({
    add: (platform) => onState(platform as PlatformResource),
    update: (_, platform) => onState(platform as PlatformResource),
    delete: () => onState(undefined),
  });
  informer.start();
  await Promise.race([informer.waitForSync(), firstList]);
  if (informer.size === 0) onState(undefined);
}
