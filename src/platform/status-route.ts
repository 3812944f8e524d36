/**
 * `GET /namespaces/{ns}/platforms/{name}/status` on the operator's health port: the Platform's
 * status from the operator's cache, for tools that cannot reach the API server.
 */
import type { PlatformResource } from "../apis/platform/platform.ts";
import type { CacheRoute, JsonAnswer } from "../kube/ops-server.ts";
import type { Cache } from "../kube/types.ts";
import { types } from "./resource-types.ts";

/** Pure: the answer for one Platform key given what the cache holds. */
export function platformStatusAnswer(
  key: { namespace: string; name: string },
  platform: PlatformResource | undefined,
): JsonAnswer {
  if (!platform) {
    return {
      status: 404,
      body: {
        statusCode: 404,
        error: "Not Found",
        message: `platform ${key.name} in namespace ${key.namespace} is not in the operator's cache (it does not exist, or this operator does not watch that namespace)`,
      },
    };
  }
  const status = platform.status ?? {};
  return {
    status: 200,
    body: {
      namespace: key.namespace,
      name: key.name,
      generation: platform.metadata.generation,
      resourceVersion: platform.metadata.resourceVersion,
      phase: status.phase,
      version: status.version,
      ready: status.ready,
      message: status.message,
      observedGeneration: status.observedGeneration,
      conditions: status.conditions ?? [],
      components: status.components ?? [],
    },
  };
}

export const platformStatusRoute: CacheRoute = {
  path: "/namespaces/:namespace/platforms/:name/status",
  reads: [types.platform],
  get: (params, cache: Cache) => {
    const key = { namespace: params.namespace ?? "", name: params.name ?? "" };
    return platformStatusAnswer(key, cache.get<PlatformResource>(types.platform, key));
  },
};
