/** The versions a pipeline resource has had with its backend, from its status and its Events. */
import type { CoreV1Event } from "@kubernetes/client-node";
import { type Static, Type } from "@sinclair/typebox";
import { coreEventType } from "../../kube/core-types.ts";
import { resourcePath } from "../../kube/keys.ts";
import type { RestClient } from "../../kube/rest.ts";
import { upstreamStatus } from "../errors.ts";

export const HistoryEntry = Type.Object({
  at: Type.Optional(Type.String({ description: "When the Event was recorded (last time, for a repeat)" })),
  state: Type.String({ description: "The state the transition reached (the Event's reason)" }),
  version: Type.Optional(Type.String({ description: "The spec version the backend has after it" })),
  message: Type.String(),
  warning: Type.Boolean(),
});
export const HistoryView = Type.Object({
  current: Type.Object({ version: Type.Optional(Type.String()), state: Type.Optional(Type.String()) }),
  entries: Type.Array(HistoryEntry, { description: "Newest first" }),
  eventsVisible: Type.Boolean({
    description: "False when the caller may not list Events: only the current version is known",
  }),
});
export type HistoryEntry = Static<typeof HistoryEntry>;
export type HistoryView = Static<typeof HistoryView>;

/** The fields of an Event the history reads (core/v1, which also shows events.k8s.io/v1 Events). */
export type EventLike = Pick<
  CoreV1Event,
  "reason" | "message" | "type" | "eventTime" | "lastTimestamp" | "firstTimestamp" | "metadata" | "series"
>;

const versionInMessage = /\(version ([A-Za-z0-9]+)\)/;

function eventTime(event: EventLike): string | undefined {
  const time =
    event.series?.lastObservedTime ??
    event.lastTimestamp ??
    event.eventTime ??
    event.firstTimestamp ??
    event.metadata.creationTimestamp;
  return time ? new Date(time).toISOString() : undefined;
}

/** The transitions recorded as Events, newest first; the version comes from the message the sync writes. */
export function versionHistory(events: EventLike[]): HistoryEntry[] {
  const entries = events.map((event): HistoryEntry => {
    const at = eventTime(event);
    const version = versionInMessage.exec(event.message ?? "")?.[1];
    return {
      ...(at ? { at } : {}),
      state: event.reason ?? "",
      ...(version ? { version } : {}),
      message: event.message ?? "",
      warning: event.type === "Warning",
    };
  });
  return entries.sort((a, b) => (b.at ?? "").localeCompare(a.at ?? ""));
}

export interface HistorySubject {
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  status?: { version?: string; state?: string };
}

/** The history of `subject` as the caller: its Events (this object's uid only), or none when they may not list Events. */
export async function readHistory(rest: RestClient, subject: HistorySubject): Promise<HistoryView> {
  const current = {
    ...(subject.status?.version ? { version: subject.status.version } : {}),
    ...(subject.status?.state ? { state: subject.status.state } : {}),
  };
  const fieldSelector = `involvedObject.kind=${subject.kind},involvedObject.name=${subject.name},involvedObject.uid=${subject.uid}`;
  try {
    const events = await rest.request<{ items: EventLike[] }>(
      "GET",
      resourcePath(coreEventType, { namespace: subject.namespace }),
      { query: { fieldSelector } },
    );
    return { current, entries: versionHistory(events.items), eventsVisible: true };
  } catch (error) {
    if (upstreamStatus(error) !== 403) throw error;
    return { current, entries: [], eventsVisible: false };
  }
}
