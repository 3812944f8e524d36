/** Who a Run's or RunSchedule's completions belong to, and the sinks they go to (pure, from the cache). */
import type { Provider } from "../../apis/pipelines/provider.ts";
import type { Run } from "../../apis/pipelines/run.ts";
import type { RunSchedule } from "../../apis/pipelines/run-schedule.ts";
import { controllerOf } from "../../kube/owners.ts";
import type { Cache, KubeObject } from "../../kube/types.ts";
import { providerKey } from "../provider-ref.ts";
import { types } from "../types.ts";
import type { CompletionIdentity, NamespacedName } from "./event.ts";
import type { EventSource } from "./reconcile.ts";
import { resolveSinks, type Sink } from "./sinks.ts";

type Synced = (Run | RunSchedule) & { metadata: NonNullable<KubeObject["metadata"]> };

const keyOf = (resource: Synced): NamespacedName => ({
  namespace: resource.metadata.namespace ?? "",
  name: resource.metadata.name ?? "",
});

/** The Provider the backend ran it in (status), else the one its spec names. */
function providerOf(resource: Synced): NamespacedName {
  return providerKey(
    resource.status?.provider?.name ?? resource.spec.provider,
    resource.metadata.namespace ?? "",
  );
}

function owningConfiguration(resource: Synced): NamespacedName | undefined {
  const owner = controllerOf(resource);
  return owner?.kind === "RunConfiguration"
    ? { namespace: keyOf(resource).namespace, name: owner.name }
    : undefined;
}

function identityOf(resource: Synced, as: "run" | "runSchedule"): CompletionIdentity {
  const configuration = owningConfiguration(resource);
  return {
    provider: providerOf(resource),
    [as]: keyOf(resource),
    ...(configuration ? { runConfiguration: configuration } : {}),
  };
}

function sinksOf(operatorSinks: readonly Sink[], resource: Synced, cache: Cache, own?: readonly Sink[]) {
  const provider = cache.get<Provider>(types.provider, providerOf(resource));
  return resolveSinks(operatorSinks, provider?.spec.eventSinks, own);
}

export function runEvents(operatorSinks: readonly Sink[]): EventSource<Run & Synced> {
  return {
    type: types.run,
    identity: (run) => identityOf(run, "run"),
    sinks: (run, cache) => sinksOf(operatorSinks, run, cache, run.spec.eventSinks),
  };
}

export function runScheduleEvents(operatorSinks: readonly Sink[]): EventSource<RunSchedule & Synced> {
  return {
    type: types.runSchedule,
    identity: (schedule) => identityOf(schedule, "runSchedule"),
    sinks: (schedule, cache) => sinksOf(operatorSinks, schedule, cache),
  };
}
