/**
 * Which sinks a completion goes to (pure): the operator's, the Provider's and the Run's own, each once.
 * A sink is known in status, logs and metrics by its name, which never carries a URL's query.
 */
import type { Static } from "@sinclair/typebox";
import type { EventSink } from "../../apis/pipelines/events.ts";

export type Sink = Static<typeof EventSink>;

/** The name a sink is recorded and counted under: the URL without query or fragment, or nats://server/subject. */
export function sinkName(sink: Sink): string {
  if (sink.nats) return `${sink.nats.server}/${sink.nats.subject}`;
  const url = sink.url ?? "";
  const cut = url.search(/[?#]/);
  return cut < 0 ? url : url.slice(0, cut);
}

/** The sinks of one completion, by name, in order: operator, Provider, Run (a name given twice counts once). */
export function resolveSinks(...lists: (readonly Sink[] | undefined)[]): Map<string, Sink> {
  const sinks = new Map<string, Sink>();
  for (const sink of lists.flatMap((list) => list ?? [])) {
    const name = sinkName(sink);
    if (!sinks.has(name)) sinks.set(name, sink);
  }
  return sinks;
}
