/**
 * The log of an ImageBuild's pod, as the caller: read once (the build container's last lines) or
 * followed while it builds — every container of the pod in the order they run (init containers
 * first), each from when it starts until it exits.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { FastifyBaseLogger } from "fastify";
import type { ImageBuild } from "../../apis/builds/imagebuild.ts";
import { podLogPath } from "../../kube/core-types.ts";
import type { RestClient } from "../../kube/rest.ts";
import { HttpError } from "../errors.ts";
import { containerState, containerStep, listPods, tailLines } from "../pod-log.ts";
import type { StreamFeed } from "../sse.ts";

/** How often a pod whose next container has not started yet is read again. */
const startPollMs = 1000;

const started = (pod: V1Pod) => new Date(pod.metadata?.creationTimestamp ?? 0).getTime();

/** The newest pod of the build's Job, in the Job's namespace; 404 naming what is missing. */
export async function buildPod(
  rest: RestClient,
  build: ImageBuild,
): Promise<V1Pod & { metadata: { name: string; namespace: string } }> {
  const what = `ImageBuild ${build.metadata.namespace}/${build.metadata.name}`;
  if (build.status?.reused) throw new HttpError(404, `${what} built nothing: the image already existed`);
  const job = build.status?.job;
  if (!job) throw new HttpError(404, `${what} has no build Job yet`);
  const pods = await listPods(rest, job.namespace, { labelSelector: `job-name=${job.name}` });
  const pod = pods.items.sort((a, b) => started(b) - started(a))[0];
  if (!pod?.metadata?.name)
    throw new HttpError(
      404,
      `the build Job ${job.namespace}/${job.name} has no pod (it may have been cleaned up)`,
    );
  return pod as V1Pod & { metadata: { name: string; namespace: string } };
}

/**
 * The containers that hold a build's own log, one per backend: Kaniko's `kaniko`, buildah's
 * `build` (its `push` runs after). The Job renderers name them (test/unit/server/build-log.test.ts
 * renders both and checks this list against them).
 */
export const buildContainerNames: readonly string[] = ["kaniko", "build"];

/** The container of `pod` that holds the build's log (pure), whichever backend rendered it; undefined if none does. */
export const buildContainer = (pod: V1Pod): string | undefined =>
  podContainers(pod).find((name) => buildContainerNames.includes(name));

/** The pod's containers in the order they run. */
export const podContainers = (pod: V1Pod): string[] =>
  [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map((container) => container.name);

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * Follows the log of every container of `pod` into `feed`: `start` {pod, containers, build} first
 * (`build`: the container that holds the build's own log; a client replaces what it had), `container` {name} before each container's text, `log` {text}
 * as it is written, `end` {} once the last container's log has ended. A log that ends while its
 * container still runs closes the stream without `end`, so the client reconnects.
 */
export async function followPodLog(
  rest: RestClient,
  first: V1Pod & { metadata: { name: string; namespace: string } },
  feed: StreamFeed,
  log: FastifyBaseLogger,
): Promise<void> {
  const { name, namespace } = first.metadata;
  const current = async () =>
    (await listPods(rest, namespace, { fieldSelector: `metadata.name=${name}` })).items[0];
  const containers = podContainers(first);
  const build = buildContainer(first);
  feed.send("start", { pod: name, containers, ...(build ? { build } : {}) });
  let pod: V1Pod | undefined = first;
  for (const container of containers) {
    while (pod && containerStep(pod, container) === "wait" && !feed.signal.aborted) {
      await pause(startPollMs, feed.signal);
      pod = await current();
    }
    if (!pod || feed.signal.aborted) break;
    if (containerStep(pod, container) === "skip") continue;
    feed.send("container", { name: container });
    await followContainer(rest, { namespace, pod: name, container }, feed);
    pod = await afterLogEnded(current, container, feed.signal);
    if (pod && !feed.signal.aborted && containerState(pod, container)?.running) {
      log.info(
        { pod: name, container },
        "the log ended while the container runs; closing for the client to reconnect",
      );
      return feed.close();
    }
  }
  if (!feed.signal.aborted) feed.send("end", {});
  feed.close();
}

/** Reads of the pod after a container's log ended, while its status still says the container runs. */
const statusLagReads = 5;

/**
 * The pod once its status says `container` stopped, or after statusLagReads reads if it still runs:
 * the kubelet ends a log when the container exits but reports the exit in the pod's status later.
 */
async function afterLogEnded(
  current: () => Promise<V1Pod | undefined>,
  container: string,
  signal: AbortSignal,
): Promise<V1Pod | undefined> {
  let pod = await current();
  for (
    let read = 1;
    read < statusLagReads && pod && containerState(pod, container)?.running && !signal.aborted;
    read++
  ) {
    await pause(startPollMs, signal);
    pod = await current();
  }
  return pod;
}

/**
 * One container's log with follow=true, as `log` events, until the kubelet ends it or the stream closes.
 * (Not the client library's `Log`: it pipes the response with no error handler, so closing a stream
 * mid-log raised an uncaught AbortError that would end the server.)
 */
async function followContainer(
  rest: RestClient,
  where: { namespace: string; pod: string; container: string },
  feed: StreamFeed,
): Promise<void> {
  try {
    const text = await rest.stream(
      podLogPath(where.namespace, where.pod),
      { container: where.container, follow: true, tailLines },
      feed.signal,
    );
    for await (const chunk of text) if (chunk) feed.send("log", { text: chunk });
  } catch (error) {
    if (feed.signal.aborted) return;
    throw new Error(`reading the log of ${where.pod}/${where.container} failed: ${(error as Error).message}`);
  }
}
