/**
 * The server's hot reads of the Kubernetes API as the caller (one object, one list page), on the
 * caller's lean JSON client (src/kube/rest.ts: node:https, keep-alive) instead of the Kubernetes
 * library's generated client over WHATWG fetch, which cost the server about a third of its CPU per
 * GET (bench/server's profile). Every other call of the server goes through the same client too.
 */
import { resourcePath } from "../kube/keys.ts";
import type { RestClient } from "../kube/rest.ts";
import type { ResourceType } from "../kube/types.ts";
import { defaultPageSize, type ListMetadata, type PageQuery, pageOf } from "./paging.ts";

/** One object of `type`, as the API server answers it (ApiError on a refusal, e.g. 404). */
export function readObject<T>(
  rest: RestClient,
  type: ResourceType,
  namespace: string,
  name: string,
): Promise<T> {
  return rest.request<T>("GET", resourcePath(type, { namespace, name }));
}

/** One page of `type`'s objects of `namespace`, as the API server answers `page` (limit and continue passed through). */
export async function readPage<T>(rest: RestClient, type: ResourceType, namespace: string, page: PageQuery) {
  const list = await rest.request<{ items: T[] } & ListMetadata>("GET", resourcePath(type, { namespace }), {
    query: { limit: page.limit ?? defaultPageSize, continue: page.continue },
  });
  return { items: list.items, ...pageOf(list) };
}
