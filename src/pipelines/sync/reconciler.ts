/**
 * Runs the state machine for one kind of pipeline resource: reads the resource and its Provider
 * from the cache, decides, performs the backend operation, and writes status and an Event per
 * transition. What differs between kinds is in a SyncedKind.
 */
import type { Provider } from "../../apis/pipelines/provider.ts";
import { getCondition } from "../../kube/conditions.ts";
import { sameJson } from "../../kube/same-json.ts";
import type {
  Cache,
  KubeObject,
  ObjectKey,
  Reconcile,
  ReconcileContext,
  ReconcileResult,
  ResourceType,
} from "../../kube/types.ts";
import { ArgoBackend } from "../argo/backend.ts";
import type { Backend, BackendObjects, Owner, ProviderConfig } from "../backend.ts";
import { keyText, providerKey, providerProblem } from "../provider-ref.ts";
import { finalizer, providerType } from "../types.ts";
import { versionOf } from "../version.ts";
import { type Action, decide, type Outcome, type SyncInput, settle } from "./state-machine.ts";
import { recordedOf, type SharedStatus, statusOf } from "./status.ts";

export interface SyncedResource extends KubeObject {
  metadata: NonNullable<KubeObject["metadata"]>;
  spec: { provider: string };
  status?: SharedStatus;
}

export type Blocker = { reason: string; message: string };

export interface SyncedKind<R extends SyncedResource, D> {
  type: ResourceType;
  /** The version of what the backend should have (a hash of the spec and what it depends on). */
  version(resource: R, cache: Cache): string;
  /** What the backend gets, or why it cannot be built yet. */
  definition(resource: R, owner: Owner, cache: Cache, provider: ProviderConfig): D | Blocker;
  objects(backend: Backend): BackendObjects<D>;
  /**
   * After a reconcile, status fields of this kind only (e.g. a Run's completion), and whether to
   * come back or delete the resource.
   */
  observe?(
    resource: R,
    backend: Backend,
    status: SharedStatus,
    context: ReconcileContext,
    at: { now: number; justSynchronized: boolean },
  ): Promise<{ status?: Record<string, unknown>; requeueAfterMs?: number; expired?: boolean }>;
}

export function backendFor(context: ReconcileContext): Backend {
  return new ArgoBackend(context.client);
}

export function providerConfig(provider: Provider): ProviderConfig {
  return {
    key: { namespace: provider.metadata.namespace ?? "", name: provider.metadata.name ?? "" },
    spec: provider.spec,
    version: versionOf(provider.spec),
  };
}

function isBlocker(value: unknown): value is Blocker {
  return (
    typeof value === "object" &&
    value !== null &&
    "reason" in value &&
    "message" in value &&
    !("owner" in value)
  );
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function syncReconciler<R extends SyncedResource, D>(kind: SyncedKind<R, D>): Reconcile {
  return async (key: ObjectKey, context: ReconcileContext): Promise<ReconcileResult | undefined> => {
    const resource = context.cache.get<R>(kind.type, key);
    if (!resource) return undefined;
    const namespace = resource.metadata.namespace ?? "";
    const owner: Owner = {
      object: resource,
      kind: kind.type.kind,
      namespace,
      name: resource.metadata.name ?? "",
    };
    const pKey = providerKey(resource.spec.provider, namespace);
    const provider = context.cache.get<Provider>(providerType, pKey);
    const config = provider ? providerConfig(provider) : undefined;
    const backend = backendFor(context);
    const now = Date.now();

    const blocker = providerProblem(resource.spec.provider, namespace, provider);
    let definition: D | undefined;
    const input: SyncInput = {
      generation: resource.metadata.generation ?? 0,
      deleting: Boolean(resource.metadata.deletionTimestamp),
      finalizerPresent: resource.metadata.finalizers?.includes(finalizer) ?? false,
      needsFinalizer: backend.needsFinalizer(namespace, pKey),
      provider: keyText(pKey),
      providerProblem: blocker,
      version: kind.version(resource, context.cache),
      providerVersion: config?.version ?? "",
      recorded: recordedOf(resource.status),
      now,
    };
    let action: Action = decide(input);
    if (action.type === "addFinalizer") {
      await context.client.addFinalizer(kind.type, key, finalizer);
      input.finalizerPresent = true;
      action = decide(input);
    }
    if (action.type === "removeFinalizer") {
      await context.client.removeFinalizer(kind.type, key, finalizer);
      return undefined;
    }
    if (input.deleting && action.type === "none") return undefined;
    if ((action.type === "create" || action.type === "update" || action.type === "move") && config) {
      const built = kind.definition(resource, owner, context.cache, config);
      if (isBlocker(built)) {
        action = { type: "blocked", ...built };
      } else definition = built;
    }

    const previous = resource.status;
    const previousMessage = getCondition(previous?.conditions, "Synchronized")?.message ?? "";
    let recorded = input.recorded;
    let message = previousMessage;
    let requeueAfterMs: number | undefined;
    /** The transition this reconcile makes (one Event; a state passed through within it is named in the note). */
    let transition: { state: string; message: string; warning: boolean } | undefined;

    if (action.type === "blocked") {
      recorded = { ...recorded, state: "Failed", retryAt: undefined, observedGeneration: input.generation };
      message = action.message;
      // a provider problem is re-examined when the Provider changes (watch); others are polled
      if (!blocker) requeueAfterMs = 30_000;
      if (previous?.state !== "Failed" || previousMessage !== message) {
        transition = { state: "Failed", message, warning: true };
      }
    } else if (action.type === "wait") {
      requeueAfterMs = action.afterMs;
    } else if (action.type !== "none" && "state" in action) {
      const outcome = await perform(action, kind.objects(backend), config, definition);
      const settled = settle(input, action, outcome);
      recorded = settled.recorded;
      message = settled.message;
      transition = {
        state: recorded.state ?? "",
        message: `${action.state} → ${recorded.state}: ${message}`,
        warning: recorded.state === "Failed",
      };
      if (recorded.state === "Failed" && recorded.retryAt !== undefined)
        requeueAfterMs = recorded.retryAt - now;
    } else if (previous?.observedGeneration !== input.generation) {
      recorded = { ...recorded, observedGeneration: input.generation };
    }

    const shared = statusOf(recorded, previous, { message }, blocker, new Date(now));
    const observed =
      !input.deleting && recorded.state === "Succeeded" && kind.observe
        ? await kind.observe(resource, backend, shared, context, {
            now,
            justSynchronized: transition !== undefined,
          })
        : undefined;
    const status = { ...shared, ...observed?.status };
    const written = sameJson(status, previous ?? {})
      ? undefined
      : await context.client.applyStatus({ ...resource, status });
    // a transition computed again from a copy the cache had not refreshed is not reported twice
    if (transition && written) {
      context.events.event(
        resource,
        transition.warning ? "Warning" : "Normal",
        transition.state,
        transition.message,
      );
    }
    if (recorded.state === "Deleted") await context.client.removeFinalizer(kind.type, key, finalizer);
    if (observed?.expired) await context.client.delete(kind.type, key);
    const next = [requeueAfterMs, observed?.requeueAfterMs].filter((ms): ms is number => ms !== undefined);
    return next.length ? { requeueAfterMs: Math.max(0, Math.min(...next)) } : undefined;
  };
}

async function perform<D>(
  action: Extract<Action, { state: string }>,
  objects: BackendObjects<D>,
  provider: ProviderConfig | undefined,
  definition: D | undefined,
): Promise<Outcome> {
  try {
    if (action.type === "delete") {
      const [namespace = "", name = ""] = action.provider.split("/");
      await objects.delete({ namespace, name }, action.id);
      return { ok: true };
    }
    if (!provider || definition === undefined) return { ok: false, error: "the Provider is not available" };
    if (action.type === "move") {
      const [namespace = "", name = ""] = action.from.provider.split("/");
      await objects.delete({ namespace, name }, action.from.id);
      return { ok: true, id: await objects.create(provider, definition) };
    }
    if (action.type === "create") return { ok: true, id: await objects.create(provider, definition) };
    return { ok: true, id: await objects.update(provider, action.id, definition) };
  } catch (error) {
    return { ok: false, error: errorText(error) };
  }
}
