import type { FastifyBaseLogger } from "fastify";
import type { Logger } from "pino";
import { Informer } from "../../kube/informer.ts";
import { resourcePath } from "../../kube/keys.ts";
import { ApiError, isGone, type RestClient, type WatchEvent } from "../../kube/rest.ts";
import type { KubeObject, ResourceType } from "../../kube/types.ts";
import { abortableSleep } from "../../lib/abortable-sleep.ts";
import { exponentialDelay } from "../../lib/backoff.ts";

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
 * Follows the objects of `scope` as the caller (on connections of its own, closed with it), with the runtime's informer (list, watch from the
 * list's resourceVersion, resume, relist on 410 Gone). Resolves once the
 * first list is in (after `snapshot`); that list's error rejects (the caller answers it as an HTTP error). Later
 * failures back off and retry, and the fifth in a row goes to onFailure.
 */
export async function followResources(
  caller: RestClient,
  scope: FollowScope,
  handlers: FollowHandlers,
): Promise<void> {
  const { signal, onFailure } = handlers;
  const rest = caller.withOwnConnections();
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

export interface ChangeHandlers {
  upsert: (object: KubeObject) => void;
  delete: (object: KubeObject) => void;
  /** The API server no longer has the changes since the resourceVersion (410 Gone): list again. */
  expired: () => void;
  onFailure: (error: unknown) => void;
  signal: AbortSignal;
  log: FastifyBaseLogger;
}

/**
 * Follows the changes of `scope` after `resourceVersion` (a page's list) as the caller, with no list
 * of its own: a watch from it with bookmarks, resumed from the last resourceVersion seen when the API
 * server ends it. Resolves once the first watch is open; its refusal rejects (the caller answers it as
 * an HTTP error). A 410 Gone is `expired` and the end; the fifth other failure in a row `onFailure`.
 */
export async function followChanges(
  caller: RestClient,
  scope: FollowScope,
  resourceVersion: string,
  handlers: ChangeHandlers,
): Promise<void> {
  const rest = caller.withOwnConnections();
  const path = resourcePath(scope.type, { namespace: scope.namespace });
  const { signal } = handlers;
  let from = resourceVersion;
  const onEvent = (event: WatchEvent) => {
    if (event.type === "ERROR") {
      const status = event.object as { code?: number };
      throw new ApiError(status.code ?? 500, "WATCH", path, event.object);
    }
    const object = event.object as KubeObject;
    if (event.type === "ADDED" || event.type === "MODIFIED") handlers.upsert(object);
    if (event.type === "DELETED") handlers.delete(object);
    from = object.metadata?.resourceVersion ?? from;
  };
  const watchOnce = (onOpen: () => void) =>
    rest.watch(
      path,
      {
        resourceVersion: from,
        allowWatchBookmarks: true,
        fieldSelector: scope.fieldSelector,
        timeoutSeconds: 300,
      },
      onEvent,
      signal,
      360_000,
      onOpen,
    );
  const run = async (first: Promise<void>) => {
    let failures = 0;
    let watching = first;
    for (;;) {
      try {
        await watching;
        failures = 0;
      } catch (error) {
        if (signal.aborted) break;
        if (isGone(error)) {
          handlers.expired();
          break;
        }
        if (++failures >= failuresToGiveUp) {
          handlers.onFailure(error);
          break;
        }
        await abortableSleep(exponentialDelay({ baseMs: 400, maxMs: 10_000 }, failures - 1), signal);
      }
      if (signal.aborted) break;
      watching = watchOnce(() => {});
    }
    rest.close();
  };
  let opened = false;
  let markOpen = () => {};
  const open = new Promise<void>((resolve) => {
    markOpen = resolve;
  });
  const first = watchOnce(() => {
    opened = true;
    markOpen();
  });
  try {
    // a refusal before the watch opened (403, 410) is the caller's answer
    await Promise.race([open, first.catch((error: unknown) => (opened ? undefined : Promise.reject(error)))]);
  } catch (error) {
    rest.close();
    throw error;
  }
  void run(first);
}
