/**
 * The run-completion CloudEvent (spec 1.0), as a pure function of one recorded completion and the
 * resource it belongs to. Its `id` is fixed when the completion is recorded, so every retry of the
 * same completion carries the same id: consumers deduplicate on it.
 */
import { createHash } from "node:crypto";
import type { Static } from "@sinclair/typebox";
import type { CloudEvent } from "cloudevents";
import type { EventDelivery } from "../../apis/pipelines/events.ts";
import { onFirstUseSync } from "../../lib/on-first-use.ts";

/** The CloudEvents SDK (+10 MB resident with its validator), loaded by the first event an operator sends. */
export const cloudEventsSdk = onFirstUseSync<typeof import("cloudevents")>("cloudevents");

export const runCompletionType = "dev.slipway.pipelines.run-completion";

export type DeliveryRecord = Static<typeof EventDelivery>;

export interface NamespacedName {
  namespace: string;
  name: string;
}

/** Who completed: the Provider that ran it, and the Run / RunSchedule / RunConfiguration it belongs to. */
export interface CompletionIdentity {
  provider: NamespacedName;
  run?: NamespacedName;
  runSchedule?: NamespacedName;
  runConfiguration?: NamespacedName;
}

/** The event's payload (`data`, JSON). */
export interface RunCompletionData extends CompletionIdentity {
  runId: string;
  status: "Succeeded" | "Failed";
  startedAt?: string;
  finishedAt?: string;
  artifacts: { name: string; location: string }[];
}

/**
 * One id per completion: the resource (by uid, so a re-created namesake differs) and the backend's
 * run id. A hex string of 32 characters.
 */
export function completionEventId(resourceUid: string, runId: string): string {
  return createHash("sha256").update(`${resourceUid}\n${runId}`).digest("hex").slice(0, 32);
}

const path = (kind: string, key: NamespacedName) => `/namespaces/${key.namespace}/${kind}/${key.name}`;

/** The CloudEvent for `record` of the resource `identity` names. */
export function runCompletionEvent(
  identity: CompletionIdentity,
  record: DeliveryRecord,
): CloudEvent<RunCompletionData> {
  const owner = identity.run
    ? path("runs", identity.run)
    : identity.runSchedule
      ? path("runschedules", identity.runSchedule)
      : "";
  const data: RunCompletionData = {
    ...identity,
    runId: record.runId,
    status: record.state === "Succeeded" ? "Succeeded" : "Failed",
    ...(record.startedAt ? { startedAt: record.startedAt } : {}),
    ...(record.finishedAt ? { finishedAt: record.finishedAt } : {}),
    artifacts: record.artifacts ?? [],
  };
  const { CloudEvent: SdkCloudEvent } = cloudEventsSdk();
  return new SdkCloudEvent<RunCompletionData>({
    specversion: "1.0",
    id: record.id,
    type: record.type,
    source: `/apis/pipelines.slipway.dev/v1beta1${path("providers", identity.provider)}`,
    subject: `${owner.slice(1)}/completions/${record.runId}`,
    time: record.finishedAt ?? record.recordedAt,
    datacontenttype: "application/json",
    data,
  });
}
