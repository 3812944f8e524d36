import type { KubeConfig } from "@kubernetes/client-node";
import type { FastifyBaseLogger } from "fastify";
import type { Logger } from "pino";
import { Informer } from "../../kube/informer.ts";
import { RestClient } from "../../kube/rest.ts";
import type { KubeObject, ResourceType } from "../../kube/types.ts";

/** What to follow: objects of one type in one namespace, optionally narrowed by a field selector. */
export interface FollowScope {
  type: ResourceType;
  namespace: string;
  fieldSelector?: string;
}

export interface FollowHandlers {
  /** The objects known once the first list is in; before any upsert or delete. */
  snapshot: (objects: KubeObject[]) => void;
  upsert: (object: KubeObject) => void;
  delete: (object: KubeObject) => void;
  /** A failure that ended the follow (e.g. the caller lost access); the stream should close. */
  onFailure: (error: unknown) => void;
  signal: AbortSignal;
  log: FastifyBaseLogger;
}

/** Failed lists or watches in a row after which the follow ends (the caller's access is gone, say). */
const failuresToGiveUp = 5;

/**
 * Follows the objects of `scope` as the caller, with the runtime's informer (list, watch from the
 * list's resourceVersion, resume, relist on 410 Gone). Resolves once the
 * first list is in (after `snapshot`); that list's error rejects (the caller answers it as an HTTP error). Later
 * failures back off and retry, and the fifth in a row goes to onFailure.
 */
export async function followResources(
  kube: KubeConfig,
  scope: FollowScope,
  handlers: FollowHandlers,
): Promise<void> {
  const { signal, onFailure } = handlers;
  const rest = new RestClient(kube, { userAgent: "slipway-server" });
  let rejectFirstList: (error: unknown) => void = () => {};
  const firstList = new Promise<never>((_, reject) => {
    rejectFirstList = reject;
  });
  const type = scope.fieldSelector ? { ...scope.type, fieldSelector: scope.fieldSelector } : scope.type;
  const informer = new Informer(type, rest, {
    namespaces: [scope.namespace],
    log: handlers.log as Logger,
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
  // Changes count from the moment the known objects are taken (in the same turn): none is lost or told twice.
  let live = false;
  informer.addHandlers({
    add: (object) => live && handlers.upsert(object),
    update: (_, object) => live && handlers.upsert(object),
    delete: (object) => live && handlers.delete(object),
  });
  informer.start();
  await Promise.race([informer.waitForSync(), firstList]);
  handlers.snapshot(informer.list());
  live = true;
}
