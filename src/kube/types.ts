/**
 * The contract between the controller runtime (src/kube) and the controllers built on it
 * (src/platform, src/builds, src/pipelines). Controllers import these types only; the runtime
 * implements them.
 */
import type { V1ObjectMeta } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { Registry } from "../lib/metrics-client.ts";

/** A Kubernetes resource type, enough to build its REST paths and to name it in RBAC. */
export interface ResourceType {
  group: string; // "" for the core group
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  /**
   * Watch and cache only the objects matching this field selector, e.g. `metadata.name=slipway-builds`
   * (the cache of such a type is separate from the type's unfiltered one).
   */
  fieldSelector?: string;
  /**
   * Watch and cache only the objects matching this label selector, e.g. `app.kubernetes.io/managed-by=slipway`
   * (a controller that owns Pods caches its own, not every Pod of the namespace).
   */
  labelSelector?: string;
  /**
   * The cache keeps each object's metadata and status only (a cache of its own): for a large record
   * whose spec the readers never look at, e.g. Argo's Workflows, whose progress is their status.
   */
  cacheWithoutSpec?: boolean;
}

export interface ObjectKey {
  namespace?: string;
  name: string;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
}

/** Read-only view of the shared informer cache: what reconcilers read instead of calling the API server. */
export interface Cache {
  get<T extends KubeObject>(type: ResourceType, key: ObjectKey): T | undefined;
  list<T extends KubeObject>(
    type: ResourceType,
    options?: { namespace?: string; labels?: Record<string, string> },
  ): T[];
  /** Objects whose index `index` contains `value`. Built in: "controller" (value: the controlling owner's uid). */
  byIndex<T extends KubeObject>(type: ResourceType, index: string, value: string): T[];
  /**
   * Whether the cache of `type` holds every object of `namespace` (synced, and the namespace is one
   * the cache watches): an object missing from it does not exist as of the last event.
   */
  holds(type: ResourceType, namespace?: string): boolean;
}

/** Writes to the API server. Every write is server-side apply with the controller's field manager, unless named otherwise. */
export interface Client {
  /**
   * Server-side apply. Without `force` a field another field manager set to another value is a 409
   * Conflict: a controller forces only on objects it has checked it controls.
   */
  apply<T extends KubeObject>(object: T, options?: { force?: boolean }): Promise<T>;
  /** Creates the object; 409 Conflict (AlreadyExists) if one of that name exists. */
  create<T extends KubeObject>(object: T): Promise<T>;
  /**
   * Server-side apply to the /status subresource; sends only the object's identity and `status`, so pass
   * the object itself. `basedOn` (a resourceVersion) makes it conditional: 409 Conflict if the object
   * changed since. Controllers write status through `StatusWriter` (status-writer.ts), not directly.
   */
  applyStatus<T extends KubeObject>(object: T, options?: { basedOn?: string }): Promise<T>;
  /**
   * Deletes; a missing object is not an error. `uid`: only the object of that uid (a precondition:
   * 409 Conflict if the name now holds another).
   */
  delete(
    type: ResourceType,
    key: ObjectKey,
    options?: { propagationPolicy?: "Foreground" | "Background" | "Orphan"; uid?: string },
  ): Promise<void>;
  /**
   * Adds or removes a finalizer, retrying on conflicts. Returns the object as the API server holds it
   * afterwards (undefined when it is gone), so a write that follows can carry its resourceVersion.
   */
  addFinalizer(type: ResourceType, key: ObjectKey, finalizer: string): Promise<KubeObject | undefined>;
  removeFinalizer(type: ResourceType, key: ObjectKey, finalizer: string): Promise<KubeObject | undefined>;
  /** Creates a subresource of an existing object, e.g. a ServiceAccount's `token` (a TokenRequest). */
  createSubresource<T>(type: ResourceType, key: ObjectKey, subresource: string, body: unknown): Promise<T>;
  /** A live read, for the rare case the cache cannot serve (e.g. a kind not watched). */
  get<T extends KubeObject>(type: ResourceType, key: ObjectKey): Promise<T | undefined>;
  /** A live list (a kind not watched), optionally by label selector. */
  list<T extends KubeObject>(
    type: ResourceType,
    options: { namespace?: string; labelSelector?: string },
  ): Promise<T[]>;
}

/** Kubernetes Events (events.k8s.io/v1) about an object; repeats are aggregated by the runtime. */
export interface EventRecorder {
  event(object: KubeObject, type: "Normal" | "Warning", reason: string, message: string): void;
}

export interface ReconcileContext {
  cache: Cache;
  client: Client;
  events: EventRecorder;
  /** Carries controller, object key and a reconcile id. */
  log: Logger;
  signal: AbortSignal;
}

export interface ReconcileResult {
  /** Reconcile this key again after this many milliseconds (no error, no backoff). */
  requeueAfterMs?: number;
}

/** Thrown by a reconciler for an error that retrying cannot fix (it is logged and not requeued). */
export class TerminalError extends Error {
  override name = "TerminalError";
}

export type Reconcile = (key: ObjectKey, context: ReconcileContext) => Promise<ReconcileResult | undefined>;

/** One verb set on one resource, as RBAC needs it; the bundle's Role/ClusterRole are generated from these. */
export interface Permission {
  type: ResourceType;
  verbs: ("get" | "list" | "watch" | "create" | "update" | "patch" | "delete")[];
  subresource?: string;
  /** Only these objects (RBAC `resourceNames`); only for verbs on one named object (get, update, patch, delete). */
  resourceNames?: string[];
}

export interface ControllerSpec {
  name: string;
  /** The kind this controller reconciles; its events enqueue the object's own key. */
  for: ResourceType;
  /** Child kinds; an event on a child enqueues its controlling owner (of kind `for`). */
  owns?: ResourceType[];
  /**
   * Other kinds whose events map to keys of `for` (the map may read the cache, e.g. an index).
   * `optional`: another project's kind the API server may not serve (e.g. Argo's Workflow); the
   * controller starts once its cache synced or the API server said it does not serve it, and
   * /readyz does not wait for it. Reconcilers ask `cache.holds` before trusting its absence.
   */
  watches?: {
    type: ResourceType;
    map: (object: KubeObject, cache: Cache) => ObjectKey[];
    optional?: boolean;
  }[];
  /**
   * Kinds the reconciler reads from the cache whose events enqueue nothing (e.g. the pods of a Job
   * it owns). Like every kind above they are cached, waited for and granted get/list/watch
   * (readKinds in reads.ts).
   */
  reads?: ResourceType[];
  /** Indexes this controller needs on a cached kind (name → values of an object). */
  indexes?: { type: ResourceType; name: string; values: (object: KubeObject) => string[] }[];
  reconcile: Reconcile;
  /** Reconciles running at once (never two for one key). Default 4. */
  concurrency?: number;
  /** What the controller writes, beyond the get/list/watch the runtime derives from what it reads (readKinds). */
  permissions: Permission[];
  /** The controller's own metrics, served on the operator's /metrics beside the runtime's. */
  metrics?: Registry;
}
