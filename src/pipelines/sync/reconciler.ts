/**
 * Runs a synchronized kind: observes the resource and its Provider in the cache, lets plan.ts decide
 * the commands, and executes them in order — finalizers, the backend call, the status write (through
 * a StatusWriter: the transition's Event only when the write happened), deletion, requeue.
 */
import type { Provider } from "../../apis/pipelines/provider.ts";
import { StatusWriter, staleCopyRetryMs } from "../../kube/status-writer.ts";
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
import { type BackendOperation, planSync, type SyncCommand, type SyncObservation } from "./plan.ts";
import type { Outcome } from "./state-machine.ts";
import { recordedOf, type SharedStatus } from "./status.ts";
import { runStatusSteps, type StatusStep, type StepStatus, withStepStatus } from "./status-steps.ts";

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
 * status write (status-steps.ts).
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
    const target = { kind, key, resource, context, writer, backendOf, submitted, parts };
    return execute(withStepWrite(commands, parts, resource), target);
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
  key: ObjectKey;
  resource: R;
  context: ReconcileContext;
  writer: StatusWriter<SharedStatus>;
  backendOf: BackendOf;
  /** Ids that submissions got, by resource uid and submission (a bounded memory). */
  submitted: Map<string, string | undefined>;
  /** What the status steps set, merged into the status write. */
  parts: readonly StepStatus[];
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

async function execute<R extends SyncedResource, D>(
  commands: SyncCommand<D>[],
  target: Target<R, D>,
): Promise<ReconcileResult | undefined> {
  const { kind, key, context, backendOf } = target;
  // the copy the status write is based on: the cached one, or the one a finalizer patch returned
  let resource = target.resource;
  const queue = [...commands];
  let requeueAfterMs: number | undefined;
  let stepsWritten = false;
  const requeue = (ms: number) => {
    requeueAfterMs = requeueAfterMs === undefined ? ms : Math.min(requeueAfterMs, ms);
  };
  for (let command = queue.shift(); command; command = queue.shift()) {
    switch (command.type) {
      case "AddFinalizer": {
        const patched = await context.client.addFinalizer(kind.type, key, finalizer);
        // else the status write would carry the resourceVersion this patch replaced: refused (409), lost
        if (patched) resource = { ...resource, metadata: patched.metadata };
        break;
      }
      case "RemoveFinalizer":
        await context.client.removeFinalizer(kind.type, key, finalizer);
        break;
      case "CallBackend":
        queue.unshift(...command.next(await callOnce(target, command)));
        break;
      case "PollCompletion": {
        const { provider, id, wanted } = command.poll;
        const backend = backendOf(provider);
        const at = providerAt(context.cache, provider);
        const completion = backend && (await backend.runs.completion(at, id, wanted));
        queue.unshift(...command.next(completion));
        break;
      }
      case "SetStatus": {
        // the status steps' part goes into the first write (a plan writes once)
        const parts = stepsWritten ? [] : target.parts;
        for (const ms of await writeWithSteps(target, resource, command, parts)) requeue(ms);
        stepsWritten = true;
        break;
      }
      case "DeleteResource":
        await context.client.delete(kind.type, key);
        break;
      case "Requeue":
        requeue(command.afterMs);
        break;
    }
  }
  return requeueAfterMs === undefined ? undefined : { requeueAfterMs };
}

/**
 * The plan's status write with what the status steps set and their Events; then, unless refused as
 * stale, each step's work after the write. Answers the requeue delays it asks for.
 */
async function writeWithSteps<R extends SyncedResource, D>(
  target: Target<R, D>,
  resource: R,
  command: Extract<SyncCommand<D>, { type: "SetStatus" }>,
  parts: readonly StepStatus[],
): Promise<number[]> {
  const status = withStepStatus(command.status, parts, resource.metadata.generation);
  const events = [command.event, ...parts.map((part) => part.event)].filter((e) => e !== undefined);
  const written = await target.writer.write(target.context, resource, status, events);
  if (written.requeueAfterMs > 0) return [written.requeueAfterMs]; // stale: all of it again, later
  for (const part of parts) await part.afterWrite?.();
  return [
    ...parts.flatMap((part) => (part.requeueAfterMs ? [part.requeueAfterMs] : [])),
    // what the steps recorded is decided on again once the cache holds it (e.g. a Run's expiry
    // waits for its events' delivery)
    ...(written.written && parts.some((part) => part.status) ? [staleCopyRetryMs] : []),
  ];
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
