/**
 * Run-completion events in the API: where they go (`eventSinks` on a Provider or a Run) and how their
 * delivery stands (`status.events` on a Run or RunSchedule). See src/pipelines/events/.
 */
import { Type } from "@sinclair/typebox";
import { validations } from "../schema.ts";
import { ArtifactLocation } from "./common.ts";

/** A NATS subject: dot-separated tokens, no spaces or wildcards (a publish subject). */
export const natsSubjectPattern = "^[^.*>\\s]+(\\.[^.*>\\s]+)*$";

export const EventSink = Type.Object(
  {
    url: Type.Optional(
      Type.String({
        pattern: "^https?://[^\\s@]+$",
        maxLength: 2048,
        description:
          "An HTTP endpoint (Knative Broker, Argo Events webhook…) that takes CloudEvents in binary mode. No credentials in the URL.",
      }),
    ),
    nats: Type.Optional(
      Type.Object(
        {
          server: Type.String({
            pattern: "^nats://[^\\s@/]+$",
            maxLength: 1024,
            description: "`nats://host:port` of the NATS server.",
          }),
          subject: Type.String({ pattern: natsSubjectPattern, maxLength: 1024 }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    additionalProperties: false,
    ...validations({
      rule: "has(self.url) != has(self.nats)",
      message: "an event sink has exactly one of url or nats",
    }),
  },
);

export const EventSinks = Type.Array(EventSink, {
  maxItems: 16,
  description: "Where run-completion CloudEvents are delivered (at least once).",
});

const SinkDelivery = Type.Object({
  sink: Type.String({ description: "The sink's name: its URL without query, or nats://server/subject" }),
  delivered: Type.Boolean(),
  attempts: Type.Integer({ minimum: 0 }),
  failed: Type.Optional(Type.Boolean({ description: "Gave up: the sink kept failing" })),
  lastError: Type.Optional(Type.String({ maxLength: 1024 })),
  retryAt: Type.Optional(Type.String({ format: "date-time" })),
  deliveredAt: Type.Optional(Type.String({ format: "date-time" })),
});

/** One completion's event and its delivery to each sink; the completion is kept so the event can be sent again. */
export const EventDelivery = Type.Object({
  id: Type.String(),
  type: Type.String(),
  recordedAt: Type.String({ format: "date-time" }),
  runId: Type.String({ description: "The backend's run id" }),
  state: Type.String({ description: "Succeeded or Failed" }),
  startedAt: Type.Optional(Type.String({ format: "date-time" })),
  finishedAt: Type.Optional(Type.String({ format: "date-time" })),
  artifacts: Type.Optional(Type.Array(ArtifactLocation)),
  sinks: Type.Array(SinkDelivery),
});

export const EventDeliveries = Type.Array(EventDelivery, {
  description: "Run-completion events and their delivery (delivered, attempts, last error) per sink.",
});
