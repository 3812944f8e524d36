import { type KubeConfig, Watch } from "@kubernetes/client-node";
import type { PlatformResource } from "../../apis/platform/platform.ts";
import { listPlatform, type PlatformKey, platformCollectionPath } from "./platforms.ts";

export interface FollowOptions {
  /** Called with the Platform after every change; undefined when it does not exist (or was deleted). */
  onState: (platform: PlatformResource | undefined) => void;
  /** A failure that ended the follow (e.g. the caller lost access); the stream should close. */
  onFailure: (error: unknown) => void;
  signal: AbortSignal;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const isGone = (object: unknown) =>
  typeof object === "object" && object !== null && (object as { code?: number }).code === 410;

/**
 * Follows one Platform with a watch as the caller: lists it first (its state, and the
 * resourceVersion to watch from), then watches; a watch the API server ends is resumed from the last
 * resourceVersion seen, and a 410 Gone (history compacted) starts over with a fresh list.
 * The first list's errors reject (the caller answers them as HTTP errors); later ones go to onFailure.
 */
export async function followPlatform(
  kube: KubeConfig,
  key: PlatformKey,
  options: FollowOptions,
): Promise<void> {
  const { onState, onFailure, signal } = options;
  const first = await listPlatform(kube, key);
  onState(first.platform);
  void (async () => {
    let resourceVersion: string | undefined = first.resourceVersion;
    let failures = 0;
    while (!signal.aborted) {
      try {
        if (resourceVersion === undefined) {
          const listed = await listPlatform(kube, key);
          onState(listed.platform);
          resourceVersion = listed.resourceVersion;
        }
        resourceVersion = await watchOnce(kube, key, resourceVersion, onState, signal);
        failures = 0;
      } catch (error) {
        failures += 1;
        if (failures >= 5) {
          if (!signal.aborted) onFailure(error);
          return;
        }
        await sleep(200 * 2 ** failures);
      }
    }
  })();
}

/** One watch from `resourceVersion` until it ends; resolves with the version to resume from (undefined: relist). */
function watchOnce(
  kube: KubeConfig,
  key: PlatformKey,
  resourceVersion: string,
  onState: FollowOptions["onState"],
  signal: AbortSignal,
): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    let latest: string | undefined = resourceVersion;
    let controller: AbortController | undefined;
    let ended = false; // we ended the watch on purpose: its AbortError is not a failure
    const stop = () => {
      ended = true;
      controller?.abort();
    };
    signal.addEventListener("abort", stop, { once: true });
    const finish = (error: unknown) => {
      signal.removeEventListener("abort", stop);
      if (error && !ended) reject(error);
      else resolve(latest);
    };
    new Watch(kube)
      .watch(
        platformCollectionPath(key),
        { fieldSelector: `metadata.name=${key.name}`, resourceVersion, allowWatchBookmarks: true },
        (type, object: PlatformResource) => {
          if (type === "ERROR") {
            latest = isGone(object) ? undefined : latest;
            stop();
            return;
          }
          latest = object.metadata?.resourceVersion ?? latest;
          if (type === "BOOKMARK") return;
          onState(type === "DELETED" ? undefined : object);
        },
        finish,
      )
      .then((started) => {
        controller = started;
        if (signal.aborted) started.abort();
      }, finish);
  });
}
