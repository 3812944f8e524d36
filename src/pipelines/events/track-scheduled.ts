/**
 * The RunSchedule controller's tracking step (I/O around scheduled.ts): ask the backend of the
 * schedule's Provider for its finished runs not yet marked (or, for a backend without marks, those
 * finished since the oldest record kept), record their completions in `status.events` (part of the
 * reconcile's one status write: a stale copy is refused, so nothing is recorded twice), then, once
 * the write landed, mark them in the backend. Comes back every poll interval.
 */
import type { Provider } from "../../apis/pipelines/provider.ts";
import type { RunSchedule } from "../../apis/pipelines/run-schedule.ts";
import { staleCopyRetryMs } from "../../kube/status-writer.ts";
import type { BackendRegistry } from "../backend.ts";
import { providerKey } from "../provider-ref.ts";
import { providerConfig } from "../sync/reconciler.ts";
import type { StatusStep } from "../sync/status-steps.ts";
import { types } from "../types.ts";
import type { EventSource } from "./reconcile.ts";
import { planScheduledRuns, trackedSince } from "./scheduled.ts";

type Schedule = RunSchedule & { metadata: NonNullable<RunSchedule["metadata"]> };

export function scheduledRunsStep(
  registry: BackendRegistry,
  source: EventSource<Schedule>,
  pollMs: number,
): StatusStep<Schedule> {
  return async (schedule, status, context) => {
    if (schedule.metadata.deletionTimestamp) return undefined;
    // not created in the backend yet (this reconcile may be the one that does): look again later
    if (!status.provider?.id) return { requeueAfterMs: pollMs };
    const provider = providerKey(status.provider.name, schedule.metadata.namespace ?? "");
    const found = context.cache.get<Provider>(types.provider, provider);
    const plugin = found && Object.hasOwn(registry, found.spec.type) ? registry[found.spec.type] : undefined;
    if (!found || !plugin?.scheduledRuns) return undefined;
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
    const release = runs.release?.bind(runs);
    return {
      ...(plan.events ? { status: { events: plan.events } } : {}),
      // marked in the backend only once the status records them: a refused write marks nothing
      ...(release && plan.release.length
        ? {
            afterWrite: async () => {
              for (const runId of plan.release) await release(at, runId);
            },
          }
        : {}),
      // recorded: delivered by the next reconcile, once the cache holds the write; else look again in one interval
      requeueAfterMs: plan.events ? staleCopyRetryMs : pollMs,
    };
  };
}
