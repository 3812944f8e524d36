/**
 * The Provider controller: ProviderAccepted says whether every ServiceAccount it names is on the
 * operator's allowlist, AllNamespaces whether every namespace may use it, Ready whether the backend
 * of its type answers (never asked for a Provider that is not accepted).
 */
import type { Provider } from "../../apis/pipelines/provider.ts";
import { type ConditionInput, getCondition, setCondition } from "../../kube/conditions.ts";
import { executePlan, type PlanCommand } from "../../kube/plan.ts";
import { type StatusEvent, StatusWriter } from "../../kube/status-writer.ts";
import type { ControllerSpec, ObjectKey, ReconcileContext } from "../../kube/types.ts";
import type { BackendReadiness, BackendRegistry } from "../backend.ts";
import {
  acceptedCondition,
  allNamespacesCondition,
  type ServiceAccountPolicy,
} from "../provider-service-accounts.ts";
import { providerConfig } from "../sync/reconciler.ts";
import { types } from "../types.ts";

type ProviderStatus = NonNullable<Provider["status"]>;

/** A Provider that is not Ready is looked at again after this long (its backend may be installed meanwhile). */
export const notReadyRequeueMs = 30_000;

/** Ready from the backend's answer; undefined: the operator has no backend of this type. */
export function readyCondition(provider: Provider, readiness: BackendReadiness | undefined): ConditionInput {
  if (!readiness) {
    return {
      type: "Ready",
      status: "False",
      reason: "BackendUnavailable",
      message: `spec.type: this operator does not run the ${provider.spec.type} backend yet`,
    };
  }
  return readiness.ready
    ? { type: "Ready", status: "True", reason: "BackendAvailable", message: readiness.message }
    : { type: "Ready", status: "False", reason: "BackendUnavailable", message: readiness.message };
}

/** Ready of a Provider that is not accepted: its backend is not asked. */
function refusedReady(accepted: ConditionInput): ConditionInput {
  return { type: "Ready", status: "False", reason: accepted.reason, message: accepted.message };
}

/**
 * The status to write (Ready, and the `others` conditions), the Event when Ready flips, and when
 * to look again (pure).
 */
export function providerStatus(
  provider: Provider,
  ready: ConditionInput,
  others: ConditionInput[] = [],
): { status: ProviderStatus; event?: StatusEvent; requeueAfterMs?: number } {
  const generation = provider.metadata.generation;
  const before = getCondition(provider.status?.conditions, "Ready");
  const flipped = before?.status !== ready.status;
  const conditions = [...others, ready].reduce(
    (list, condition) => setCondition(list, condition, generation),
    provider.status?.conditions,
  );
  return {
    status: { observedGeneration: generation, conditions: conditions ?? [] },
    ...(flipped
      ? {
          event: {
            type: ready.status === "True" ? "Normal" : "Warning",
            reason: ready.reason,
            message: ready.message,
          },
        }
      : {}),
    ...(ready.status === "True" ? {} : { requeueAfterMs: notReadyRequeueMs }),
  };
}

interface ProviderDeps {
  backends: BackendRegistry;
  /** Which ServiceAccounts a Provider may name; default none (a Provider naming one is not accepted). */
  serviceAccounts?: ServiceAccountPolicy;
}

const noServiceAccounts: ServiceAccountPolicy = () => false;

async function reconcileProvider(
  deps: ProviderDeps & { writer: StatusWriter<ProviderStatus> },
  key: ObjectKey,
  context: ReconcileContext,
) {
  const provider = context.cache.get<Provider>(types.provider, key);
  if (!provider) return undefined;
  const accepted = acceptedCondition(provider, deps.serviceAccounts ?? noServiceAccounts, context.cache);
  const others = [accepted, allNamespacesCondition(provider)];
  const type = provider.spec.type;
  const plugin = Object.hasOwn(deps.backends, type) ? deps.backends[type] : undefined;
  const ready =
    accepted.status !== "True"
      ? refusedReady(accepted)
      : readyCondition(
          provider,
          plugin ? await plugin.create(context.client).readiness(providerConfig(provider)) : undefined,
        );
  const next = providerStatus(provider, ready, others);
  const commands: PlanCommand<ProviderStatus>[] = [
    { type: "SetStatus", status: next.status, ...(next.event ? { events: [next.event] } : {}) },
    ...(next.requeueAfterMs ? [{ type: "Requeue" as const, afterMs: next.requeueAfterMs }] : []),
  ];
  return executePlan(commands, { resource: types.provider, object: provider, writer: deps.writer, context });
}

export function providerController(deps: ProviderDeps): ControllerSpec {
  const writer = new StatusWriter<ProviderStatus>();
  return {
    name: "provider",
    for: types.provider,
    ...(deps.serviceAccounts?.reads?.length ? { reads: deps.serviceAccounts.reads } : {}),
    reconcile: (key, context) => reconcileProvider({ ...deps, writer }, key, context),
    permissions: [
      { type: types.provider, verbs: ["patch", "update"], subresource: "status" },
      ...Object.values(deps.backends).flatMap((plugin) => [
        ...plugin.readinessPermissions,
        ...(plugin.callPermissions ?? []),
      ]),
    ],
  };
}
