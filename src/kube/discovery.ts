import { groupOf } from "./keys.ts";
import type { RestClient } from "./rest.ts";
import type { ResourceType } from "./types.ts";

interface ApiResourceList {
  resources: { name: string; kind: string; namespaced: boolean }[];
}

/**
 * Maps apiVersion + kind to a ResourceType: from types registered up front (every type a
 * controller names), else from API discovery, asked once per group-version and remembered.
 */
export class ResourceTypes {
  readonly #known = new Map<string, ResourceType>();
  readonly #discovered = new Map<string, Promise<void>>();
  readonly #rest: RestClient;

  constructor(rest: RestClient) {
    this.#rest = rest;
  }

  register(type: ResourceType): void {
    this.#known.set(`${type.group ? `${type.group}/` : ""}${type.version}|${type.kind}`, type);
  }

  async resolve(apiVersion: string | undefined, kind: string | undefined): Promise<ResourceType> {
    if (!apiVersion || !kind) throw new Error("the object needs apiVersion and kind");
    const id = `${apiVersion}|${kind}`;
    const known = this.#known.get(id);
    if (known) return known;
    let discovery = this.#discovered.get(apiVersion);
    if (!discovery) {
      discovery = this.#discover(apiVersion);
      this.#discovered.set(apiVersion, discovery);
      discovery.catch(() => this.#discovered.delete(apiVersion));
    }
    await discovery;
    const found = this.#known.get(id);
    if (!found) throw new Error(`the API server does not serve kind ${kind} in ${apiVersion}`);
    return found;
  }

  async #discover(apiVersion: string): Promise<void> {
    const group = groupOf(apiVersion);
    const version = group ? apiVersion.slice(group.length + 1) : apiVersion;
    const list = await this.#rest.request<ApiResourceList>(
      "GET",
      group ? `/apis/${apiVersion}` : `/api/${version}`,
    );
    for (const resource of list.resources) {
      if (resource.name.includes("/")) continue; // subresources
      this.register({
        group,
        version,
        kind: resource.kind,
        plural: resource.name,
        namespaced: resource.namespaced,
      });
    }
  }
}
