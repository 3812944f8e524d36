import type { Logger } from "pino";
import { type IndexFunction, Informer, type InformerState } from "./informer.ts";
import { keyString } from "./keys.ts";
import { cacheId } from "./reads.ts";
import type { RestClient } from "./rest.ts";
import type { Cache, KubeObject, ObjectKey, ResourceType } from "./types.ts";

/**
 * The informer cache shared by every controller of a manager: one Informer per resource type,
 * created on first use, started once; for namespaced types it lists and watches each served
 * namespace (or the whole cluster). Reads never call the API server.
 */
export class InformerCache implements Cache {
  readonly #informers = new Map<string, Informer>();
  readonly #rest: RestClient;
  readonly #log: Logger;
  readonly #namespaces: string[] | undefined;
  #started = false;

  /** `namespaces`: cache namespaced kinds of these namespaces only; default all. */
  constructor(rest: RestClient, options: { log: Logger; namespaces?: string[] }) {
    this.#rest = rest;
    this.#log = options.log;
    this.#namespaces = options.namespaces;
  }

  /** The informer of `type`, created if needed (and started if the cache already is). */
  informer(type: ResourceType): Informer {
    const id = cacheId(type);
    let informer = this.#informers.get(id);
    if (!informer) {
      informer = new Informer(type, this.#rest, {
        namespaces: this.#namespaces,
        log: this.#log,
      });
      this.#informers.set(id, informer);
      if (this.#started) informer.start();
    }
    return informer;
  }

  informers(): Informer[] {
    return [...this.#informers.values()];
  }

  addIndex(type: ResourceType, name: string, values: IndexFunction): void {
    this.informer(type).addIndex(name, values);
  }

  start(): void {
    this.#started = true;
    for (const informer of this.#informers.values()) informer.start();
  }

  get synced(): boolean {
    return [...this.#informers.values()].every((informer) => informer.synced);
  }

  /** Each cached type (`group/version/resource`, a filtered cache with its selectors) and where its informer stands. */
  states(): { resource: string; state: InformerState }[] {
    return [...this.#informers.entries()].map(([id, informer]) => ({
      resource: id,
      state: informer.state,
    }));
  }

  async waitForSync(signal?: AbortSignal): Promise<void> {
    await Promise.all([...this.#informers.values()].map((informer) => informer.waitForSync(signal)));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.#informers.values()].map((informer) => informer.stop()));
  }

  get<T extends KubeObject>(type: ResourceType, key: ObjectKey): T | undefined {
    return this.#known(type).get(keyString(key)) as T | undefined;
  }

  list<T extends KubeObject>(
    type: ResourceType,
    options: { namespace?: string; labels?: Record<string, string> } = {},
  ): T[] {
    const objects = this.#known(type).list(options.namespace);
    const labels = options.labels ? Object.entries(options.labels) : [];
    if (labels.length === 0) return objects as T[];
    return objects.filter((object) =>
      labels.every(([name, value]) => object.metadata?.labels?.[name] === value),
    ) as T[];
  }

  byIndex<T extends KubeObject>(type: ResourceType, index: string, value: string): T[] {
    return this.#known(type).byIndex(index, value) as T[];
  }

  holds(type: ResourceType, namespace?: string): boolean {
    const informer = this.#informers.get(cacheId(type));
    if (!informer?.synced) return false;
    return (
      !type.namespaced ||
      this.#namespaces === undefined ||
      (namespace !== undefined && this.#namespaces.includes(namespace))
    );
  }

  #known(type: ResourceType): Informer {
    const informer = this.#informers.get(cacheId(type));
    if (!informer) {
      throw new Error(
        `${type.plural}.${type.group || "core"} is not cached: name it in a controller's for/owns/watches/indexes/reads`,
      );
    }
    return informer;
  }
}
