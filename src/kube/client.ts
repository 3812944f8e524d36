import type { ResourceTypes } from "./discovery.ts";
import { keyOf, resourcePath } from "./keys.ts";
import { isConflict, isNotFound, type RestClient } from "./rest.ts";
import type { Cache, Client, KubeObject, ObjectKey, ResourceType } from "./types.ts";

const applyPatch = "application/apply-patch+yaml"; // JSON is YAML
const mergePatch = "application/merge-patch+json";

/** Metadata the server owns; sending it in an apply would make it a precondition or be refused. */
const serverOwnedMetadata = [
  "managedFields",
  "resourceVersion",
  "uid",
  "creationTimestamp",
  "generation",
  "selfLink",
];

/**
 * The apply body: for status, only identity and `status`; `basedOn` (a resourceVersion) makes the write
 * conditional on the object still being at that version (409 Conflict otherwise).
 */
function forApply(object: KubeObject, part: "object" | "status", basedOn?: string): Record<string, unknown> {
  const { metadata = {}, ...rest } = object as KubeObject & Record<string, unknown>;
  if (part === "status") {
    return {
      apiVersion: object.apiVersion,
      kind: object.kind,
      metadata: {
        name: metadata.name,
        ...(metadata.namespace ? { namespace: metadata.namespace } : {}),
        ...(basedOn ? { resourceVersion: basedOn } : {}),
      },
      status: rest.status,
    };
  }
  const cleanMetadata: Record<string, unknown> = { ...metadata };
  for (const field of serverOwnedMetadata) delete cleanMetadata[field];
  const { status: _status, ...body } = rest;
  return { ...body, metadata: cleanMetadata };
}

/**
 * The runtime's Client: server-side apply with the manager's field manager (never taking another
 * manager's fields unless asked to with `force`), create, status apply on /status (forced: the
 * status of what a controller reconciles is its alone), delete ignoring 404, finalizers under
 * optimistic concurrency. Finalizer changes read the cache first, so an unchanged finalizer list
 * costs no request.
 */
export class KubeClient implements Client {
  readonly #rest: RestClient;
  readonly #types: ResourceTypes;
  readonly #fieldManager: string;
  readonly #cache: Cache | undefined;

  constructor(rest: RestClient, types: ResourceTypes, options: { fieldManager: string; cache?: Cache }) {
    this.#rest = rest;
    this.#types = types;
    this.#fieldManager = options.fieldManager;
    this.#cache = options.cache;
  }

  /** `dryRun`: the API server validates and answers the object it would store, and stores nothing. */
  async apply<T extends KubeObject>(
    object: T,
    options: { force?: boolean; dryRun?: boolean } = {},
  ): Promise<T> {
    return this.#apply(object, "object", { force: options.force ?? false, dryRun: options.dryRun ?? false });
  }

  async applyStatus<T extends KubeObject>(object: T, options: { basedOn?: string } = {}): Promise<T> {
    return this.#apply(object, "status", { force: true, basedOn: options.basedOn });
  }

  async create<T extends KubeObject>(object: T): Promise<T> {
    const type = await this.#types.resolve(object.apiVersion, object.kind);
    const key = this.#namespacedKey(type, object);
    return this.#rest.request<T>("POST", resourcePath(type, { namespace: key.namespace }), {
      query: { fieldManager: this.#fieldManager },
      body: forApply(object, "object"),
    });
  }

  async delete(
    type: ResourceType,
    key: ObjectKey,
    options: { propagationPolicy?: "Foreground" | "Background" | "Orphan"; uid?: string } = {},
  ): Promise<void> {
    try {
      await this.#rest.request("DELETE", resourcePath(type, key), {
        body: {
          apiVersion: "v1",
          kind: "DeleteOptions",
          propagationPolicy: options.propagationPolicy ?? "Background",
          ...(options.uid ? { preconditions: { uid: options.uid } } : {}),
        },
      });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  async list<T extends KubeObject>(
    type: ResourceType,
    options: { namespace?: string; labelSelector?: string },
  ): Promise<T[]> {
    const query = options.labelSelector ? { labelSelector: options.labelSelector } : {};
    const path = resourcePath(type, { namespace: options.namespace });
    return (await this.#rest.request<{ items: T[] }>("GET", path, { query })).items;
  }

  async get<T extends KubeObject>(type: ResourceType, key: ObjectKey): Promise<T | undefined> {
    try {
      return await this.#rest.request<T>("GET", resourcePath(type, key));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  createSubresource<T>(type: ResourceType, key: ObjectKey, subresource: string, body: unknown): Promise<T> {
    return this.#rest.request<T>("POST", resourcePath(type, { ...key, subresource }), { body });
  }

  addFinalizer(type: ResourceType, key: ObjectKey, finalizer: string): Promise<KubeObject | undefined> {
    return this.#changeFinalizers(type, key, (list) =>
      list.includes(finalizer) ? undefined : [...list, finalizer],
    );
  }

  removeFinalizer(type: ResourceType, key: ObjectKey, finalizer: string): Promise<KubeObject | undefined> {
    return this.#changeFinalizers(type, key, (list) =>
      list.includes(finalizer) ? list.filter((f) => f !== finalizer) : undefined,
    );
  }

  async #apply<T extends KubeObject>(
    object: T,
    part: "object" | "status",
    options: { force: boolean; basedOn?: string | undefined; dryRun?: boolean },
  ): Promise<T> {
    const type = await this.#types.resolve(object.apiVersion, object.kind);
    const key = this.#namespacedKey(type, object);
    return this.#rest.request<T>(
      "PATCH",
      resourcePath(type, { ...key, subresource: part === "status" ? "status" : undefined }),
      {
        query: {
          fieldManager: this.#fieldManager,
          ...(options.force ? { force: true } : {}),
          ...(options.dryRun ? { dryRun: "All" } : {}),
        },
        body: forApply(object, part, options.basedOn),
        contentType: applyPatch,
      },
    );
  }

  #namespacedKey(type: ResourceType, object: KubeObject): ObjectKey {
    const key = keyOf(object);
    if (type.namespaced && !key.namespace) {
      throw new Error(`${object.kind} ${key.name}: metadata.namespace is required (the kind is namespaced)`);
    }
    return key;
  }

  /**
   * Rewrites metadata.finalizers with a merge patch guarded by resourceVersion; on a conflict reads
   * the live object and tries again. `change` returns undefined when nothing needs to change. Returns
   * the object written (or found unchanged), undefined when it does not exist.
   */
  async #changeFinalizers(
    type: ResourceType,
    key: ObjectKey,
    change: (finalizers: string[]) => string[] | undefined,
  ): Promise<KubeObject | undefined> {
    let current: KubeObject | undefined;
    try {
      current = this.#cache?.get(type, key);
    } catch {
      current = undefined; // the kind is not cached
    }
    for (let attempt = 0; attempt < 10; attempt++) {
      current ??= await this.get(type, key);
      if (!current) return undefined;
      const next = change(current.metadata?.finalizers ?? []);
      if (!next) return current;
      try {
        return await this.#rest.request<KubeObject>("PATCH", resourcePath(type, key), {
          body: { metadata: { finalizers: next, resourceVersion: current.metadata?.resourceVersion } },
          contentType: mergePatch,
        });
      } catch (error) {
        if (isNotFound(error)) return undefined;
        if (!isConflict(error)) throw error;
        current = undefined;
      }
    }
    throw new Error(`${type.kind} ${key.name}: finalizers still conflicting after 10 attempts`);
  }
}
