/** A container's log as the caller: what the server answers for a build's or a pipeline step's pod. */
import type { V1Pod } from "@kubernetes/client-node";
import { Type } from "@sinclair/typebox";
import { podLogPath, podType } from "../kube/core-types.ts";
import { resourcePath } from "../kube/keys.ts";
import type { RestClient } from "../kube/rest.ts";

/** Lines of a container's log sent (then, when followed, what it writes from then on). */
export const tailLines = 1000;

export const LogsView = Type.Object({ pod: Type.String(), container: Type.String(), logs: Type.String() });

/** A container's state as the kubelet last reported it (init containers included). */
export const containerState = (pod: V1Pod, container: string) =>
  [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].find(
    (status) => status.name === container,
  )?.state;

/** What to do about one container of a pod (pure): follow its log, wait for it to start, or skip it (it never will). */
export function containerStep(pod: V1Pod, container: string): "follow" | "wait" | "skip" {
  const state = containerState(pod, container);
  if (state?.running || state?.terminated) return "follow";
  const phase = pod.status?.phase;
  return phase === "Succeeded" || phase === "Failed" ? "skip" : "wait";
}

/** The last `tailLines` lines of `container`; empty while it has not started (the API server refuses to read it). */
export async function containerLogTail(
  rest: RestClient,
  pod: V1Pod & { metadata: { name: string; namespace: string } },
  container: string,
): Promise<{ pod: string; container: string; logs: string }> {
  const { name, namespace } = pod.metadata;
  if (containerStep(pod, container) !== "follow") return { pod: name, container, logs: "" };
  const logs = await rest.request<string>("GET", podLogPath(namespace, name), {
    query: { container, tailLines },
  });
  return { pod: name, container, logs };
}

/** The pods of `namespace` a selector picks, as the caller. */
export const listPods = (
  rest: RestClient,
  namespace: string,
  selector: { labelSelector?: string; fieldSelector?: string },
) => rest.request<{ items: V1Pod[] }>("GET", resourcePath(podType, { namespace }), { query: selector });
