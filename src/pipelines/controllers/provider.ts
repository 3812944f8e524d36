/** The Provider controller: Ready says whether the backend of the Provider's type answers. */
import type { Provider } from "../../apis/pipelines/provider.ts";
import { type ConditionInput, getCondition, setCondition } from "../../kube/conditions.ts";
import { type StatusEvent, StatusWriter, soonerRequeue } from "../../kube/status-writer.ts";
import type { ControllerSpec, ObjectKey, ReconcileContext } from "../../kube/types.ts";
import type { BackendReadiness, BackendRegistry } from "../backend.ts";
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

/** The status to write, the Event when Ready flips, and when to look again (pure). */
export function providerStatus(
  provider: Provider,
  ready: ConditionInput,
): { status: ProviderStatus; event?: StatusEvent; requeueAfterMs?: number } {
  const generation = provider.metadata.generation;
  const before = getCondition(provider.status?.conditions, "Ready");
  const flipped = before?.status !== ready.status;
  return {
    status: {
      observedGeneration: generation,
      conditions: setCondition(provider.status?.conditions, ready, generation),
    },
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

async function reconcileProvider(
  deps: { backends: BackendRegistry; writer: StatusWriter<ProviderStatus> },
  key: ObjectKey,
  context: ReconcileContext,
) {
  const provider = context.cache.get<Provider>(types.provider, key);
  if (!provider) return undefined;
  const type = provider.spec.type;
  const plugin = Object.hasOwn(deps.backends, type) ? deps.backends[type] : undefined;
  const readiness = plugin
    ? await plugin.create(context.client).readiness(providerConfig(provider))
    : undefined;
  const next = providerStatus(provider, readyCondition(provider, readiness));
  const written = await deps.writer.write(context, provider, next.status, next.event);
  const requeueAfterMs = soonerRequeue(written.requeueAfterMs, next.requeueAfterMs);
  return requeueAfterMs ? { requeueAfterMs } : undefined;
}

export function providerController(deps: { backends: BackendRegistry }): ControllerSpec {
  const writer = new StatusWriter<ProviderStatus>();
  return {
    name: "provider",
    for: types.provider,
    reconcile: (key, context) => reconcileProvider({ backends: deps.backends, writer }, key, context),
    permissions: [
      { type: types.provider, verbs: ["patch", "update"], subresource: "status" },
      ...Object.values(deps.backends).flatMap((plugin) => [
        ...plugin.readinessPermissions,
        ...(plugin.callPermissions ?? []),
      ]),
    ],
  };
}
