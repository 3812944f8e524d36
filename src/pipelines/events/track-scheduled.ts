/**
 * The RunSchedule controller's tracking step (I/O around scheduled.ts): ask the backend of the
 * schedule's Provider for its finished runs not yet marked (or, for a backend without marks, those
 * finished since the oldest record kept), record their completions in `status.events` (through this
 * step's StatusWriter: a stale copy is refused, so nothing is recorded twice), then mark them in the
 * backend. Comes back every poll interval.
 */
import type { Provider } from "../../apis/pipelines/provider.ts";
import type { RunSchedule } from "../../apis/pipelines/run-schedule.ts";
import { StatusWriter, staleCopyRetryMs } from "../../kube/status-writer.ts";
import type { ObjectKey, ReconcileContext } from "../../kube/types.ts";
import type { BackendRegistry } from "../backend.ts";
import { providerKey } from "../provider-ref.ts";
import { providerConfig } from "../sync/reconciler.ts";
import { types } from "../types.ts";
import type { DeliveryStep, EventSource } from "./reconcile.ts";
import { planScheduledRuns, trackedSince } from "./scheduled.ts";

type Schedule = RunSchedule & { metadata: NonNullable<RunSchedule["metadata"]> };
type Status = NonNullable<RunSchedule["status"]>;

export function scheduledRunsStep(
  registry: BackendRegistry,
  source: EventSource<Schedule>,
  pollMs: number,
): (key: ObjectKey, context: ReconcileContext) => Promise<DeliveryStep> {
  const writer = new StatusWriter<Status>();
  return async (key, context) => {
    const schedule = context.cache.get<Schedule>(types.runSchedule, key);
    const status = schedule?.status;
    if (!schedule || schedule.metadata.deletionTimestamp) return { wrote: false };
    // not created in the backend yet (this reconcile may be the one that does): look again later
    if (!status?.provider?.id) return { wrote: false, requeueAfterMs: pollMs };
    const provider = providerKey(status.provider.name, schedule.metadata.namespace ?? "");
    const found = context.cache.get<Provider>(types.provider, provider);
    const plugin = found && Object.hasOwn(registry, found.spec.type) ? registry[found.spec.type] : undefined;
    if (!found || !plugin?.scheduledRuns) return { wrote: false };
    const runs = plugin.scheduledRuns.create(context.client);
    const at = { key: provider, config: providerConfig(found) };
    const completions = await runs.completed(
      at,
      status.provider.id,
      { artifacts: schedule.spec.artifacts ?? [], pipelineRootStorage: found.spec.pipelineRootStorage },
      trackedSince(status.events ?? []),
    );
    const sinks = [...source.sinks(schedule, context.cache).keys()];
    const plan = planScheduledRuns(
      schedule.metadata.uid ?? "",
      status.events ?? [],
      completions,
      sinks,
      Date.now(),
    );
    if (plan.events) {
      const written = await writer.write(context, schedule, { ...status, events: plan.events });
      if (!written.written)
        return { wrote: true, requeueAfterMs: written.requeueAfterMs || staleCopyRetryMs };
    }
    if (runs.release) for (const runId of plan.release) await runs.release(at, runId);
    // recorded: deliver once the cache holds the write; otherwise look again in one interval
    return plan.events
      ? { wrote: true, requeueAfterMs: staleCopyRetryMs }
      : { wrote: false, requeueAfterMs: pollMs };
  };
}
