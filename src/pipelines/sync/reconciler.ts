/**
 * Runs a synchronized kind: observes the resource and its Provider in the cache, lets plan.ts decide
 * the commands, and has the runtime's executor (src/kube/plan.ts) carry them out in order —
 * finalizers, the backend call (this file's effect), the status write (through a StatusWriter: the
 * transition's Event only when the write happened), deletion, requeue.
 */
import type { Provider } from "../../apis/pipelines/provider.ts";
import { type Effect, executePlan } from "../../kube/plan.ts";
import { StatusWriter } from "../../kube/status-writer.ts";
import type { Cache, ObjectKey, Reconcile, ReconcileContext, ReconcileResult } from "../../kube/types.ts";
import { setNewest } from "../../lib/bounded-map.ts";
import type {
  Backend,
  BackendObjects,
  BackendRegistry,
  Owner,
  ProviderAt,
  ProviderConfig,
} from "../backend.ts";
import { keyText, providerKey, providerProblem } from "../provider-ref.ts";
import { finalizer, types } from "../types.ts";
import { versionOf } from "../version.ts";
import type { SyncedKind, SyncedResource } from "./kind.ts";
import {
  type BackendCommand,
  type BackendOperation,
  planSync,
  type SyncCommand,
  type SyncObservation,
} from "./plan.ts";
import type { Outcome } from "./state-machine.ts";
import { recordedOf, type SharedStatus } from "./status.ts";
import {
  type AfterStepWrite,
  runStatusSteps,
  type StatusStep,
  type SteppedCommand,
  type StepStatus,
  stepsIntoWrite,
} from "./status-steps.ts";

export function providerConfig(provider: Provider): ProviderConfig {
  return {
    key: { namespace: provider.metadata.namespace ?? "", name: provider.metadata.name ?? "" },
    spec: provider.spec,
    version: versionOf(provider.spec),
  };
}

/** The Provider `namespace/name`, with its configuration while it exists in the cache. */
function providerAt(cache: Cache, provider: string): ProviderAt {
  const key = providerKey(provider, "");
  const found = cache.get<Provider>(types.provider, key);
  return found ? { key, config: providerConfig(found) } : { key };
}

/**
 * The backend of the Provider `namespace/name` names, by its type; undefined for a type without one.
 * A Provider that no longer exists has no type to go by: the registry's first backend cleans up.
 */
type BackendOf = (provider: string) => Backend | undefined;

function backendsFor(registry: BackendRegistry, context: ReconcileContext): BackendOf {
  const made = new Map<string, Backend>();
  return (provider) => {
    const type =
      context.cache.get<Provider>(types.provider, providerKey(provider, ""))?.spec.type ??
      Object.keys(registry)[0] ??
      "";
    const plugin = Object.hasOwn(registry, type) ? registry[type] : undefined;
    if (!plugin) return undefined;
    const backend = made.get(type) ?? plugin.create(context.client, context.cache);
    made.set(type, backend);
    return backend;
  };
}

function observe<R extends SyncedResource, D>(
  kind: SyncedKind<R, D>,
  resource: R,
  cache: Cache,
  registry: BackendRegistry,
  backendOf: BackendOf,
): SyncObservation<D> {
  const namespace = resource.metadata.namespace ?? "";
  const owner: Owner = {
    object: resource,
    kind: kind.type.kind,
    namespace,
    name: resource.metadata.name ?? "",
  };
  const key = providerKey(resource.spec.provider, namespace);
  const provider = cache.get<Provider>(types.provider, key);
  const config = provider ? providerConfig(provider) : undefined;
  const deleting = Boolean(resource.metadata.deletionTimestamp);
  return {
    input: {
      generation: resource.metadata.generation ?? 0,
      deleting,
      finalizerPresent: resource.metadata.finalizers?.includes(finalizer) ?? false,
      needsFinalizer: backendOf(keyText(key))?.needsFinalizer(namespace, key) ?? false,
      provider: keyText(key),
      providerProblem: providerProblem(resource.spec.provider, namespace, provider, registry),
      version: kind.version(resource, cache),
      providerVersion: config?.version ?? "",
      recorded: recordedOf(resource.status),
      now: Date.now(),
    },
    previous: resource.status,
    provider: config,
    build: config && !deleting ? kind.definition(resource, owner, cache, config) : undefined,
  };
}

/**
 * `steps` (event delivery, scheduled-run tracking) run first; what they set goes into the plan's one
 * status write (status-steps.ts `stepsIntoWrite`).
 */
export function syncReconciler<R extends SyncedResource, D>(
  kind: SyncedKind<R, D>,
  registry: BackendRegistry,
  steps: readonly StatusStep<R>[] = [],
): Reconcile {
  const writer = new StatusWriter<SharedStatus>();
  const submitted = new Map<string, string | undefined>();
  return async (key: ObjectKey, context: ReconcileContext): Promise<ReconcileResult | undefined> => {
    const resource = context.cache.get<R>(kind.type, key);
    if (!resource) return undefined;
    const parts = await runStatusSteps(steps, resource, context);
    const backendOf = backendsFor(registry, context);
    const commands = planSync(kind, resource, observe(kind, resource, context.cache, registry, backendOf));
    const stepped = stepsIntoWrite<D>(parts, resource.metadata.generation);
    const effect = backendEffect({ kind, resource, context, backendOf, submitted }, stepped);
    const target = { resource: kind.type, object: resource, writer, context };
    return executePlan(stepped(withStepWrite(commands, parts, resource)), target, effect);
  };
}

/** A plan that writes no status (a deletion's) still writes what the steps set. */
function withStepWrite<D>(
  commands: SyncCommand<D>[],
  parts: readonly StepStatus[],
  resource: SyncedResource,
): SyncCommand<D>[] {
  // a backend call and a completion poll always end in the plan's status write
  const writing = new Set(["SetStatus", "CallBackend", "PollCompletion"]);
  if (parts.length === 0 || commands.some((command) => writing.has(command.type))) return commands;
  return [...commands, { type: "SetStatus", status: resource.status ?? {} }];
}

interface Target<R extends SyncedResource, D> {
  kind: SyncedKind<R, D>;
  resource: R;
  context: ReconcileContext;
  backendOf: BackendOf;
  /** Ids that submissions got, by resource uid and submission (a bounded memory). */
  submitted: Map<string, string | undefined>;
}

/** Submissions remembered per controller: far more than are ever in flight with a stale copy. */
const submittedLimit = 10_000;

/** A backend call, or — for a submission already made from an earlier copy — the id it got then. */
async function callOnce<R extends SyncedResource, D>(
  target: Target<R, D>,
  command: Extract<SyncCommand<D>, { type: "CallBackend" }>,
): Promise<Outcome> {
  const memo = command.submission && `${target.resource.metadata.uid ?? ""} ${command.submission}`;
  if (memo && target.submitted.has(memo)) return { ok: true, id: target.submitted.get(memo) };
  const outcome = await call(
    command.operation,
    (provider) => objectsAt(target, provider),
    (provider) => providerAt(target.context.cache, provider),
  );
  if (memo && outcome.ok) setNewest(target.submitted, memo, outcome.id, submittedLimit);
  return outcome;
}

/**
 * Carries out the plan's own commands: the backend call and the completion poll (answering the
 * commands their `next` plans from the result), and the steps' work after the status write.
 */
function backendEffect<R extends SyncedResource, D>(
  target: Target<R, D>,
  stepped: (commands: readonly SyncCommand<D>[]) => SteppedCommand<D>[],
): Effect<SharedStatus, BackendCommand<D> | AfterStepWrite> {
  return async (command) => {
    switch (command.type) {
      case "CallBackend":
        return stepped(command.next(await callOnce(target, command)));
      case "PollCompletion": {
        const { provider, id, wanted } = command.poll;
        const backend = target.backendOf(provider);
        const at = providerAt(target.context.cache, provider);
        const completion = backend && (await backend.runs.completion(at, id, wanted));
        return stepped(command.next(completion));
      }
      case "AfterStepWrite":
        await command.run();
        return [];
    }
  };
}

function objectsAt<R extends SyncedResource, D>(target: Target<R, D>, provider: string): BackendObjects<D> {
  const backend = target.backendOf(provider);
  if (!backend) throw new Error(`Provider ${provider} has a type this operator does not run`);
  return target.kind.objects(backend);
}

/** Performs one backend operation; its failure is an outcome (the plan retries with backoff), not an exception. */
async function call<D>(
  operation: BackendOperation<D>,
  objectsAt: (provider: string) => BackendObjects<D>,
  at: (provider: string) => ProviderAt,
): Promise<Outcome> {
  try {
    if (operation.type === "delete") {
      await objectsAt(operation.provider).delete(at(operation.provider), operation.id);
      return { ok: true };
    }
    const { provider, definition } = operation;
    const objects = objectsAt(keyText(provider.key));
    if (operation.type === "move") {
      const { from } = operation;
      await objectsAt(from.provider).delete(at(from.provider), from.id);
      return { ok: true, id: await objects.create(provider, definition) };
    }
    if (operation.type === "create") return { ok: true, id: await objects.create(provider, definition) };
    return { ok: true, id: await objects.update(provider, operation.id, definition) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
