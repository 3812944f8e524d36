/**
 * The operator's run-completion event configuration: a YAML/JSON file named by $SLIPWAY_EVENTS_CONFIG,
 * read once at start. Its sinks receive every completion's event (beside the Provider's and the Run's).
 *
 *   sinks: [{url: http://broker.knative-eventing/team/default}, {nats: {server: nats://nats:4222, subject: runs.done}}]
 *   retry: {baseSeconds: 1, maxSeconds: 300, maxAttempts: 12}
 *   timeoutSeconds: 10
 */
import { readFileSync } from "node:fs";
import { type Static, Type } from "@sinclair/typebox";
import { EventSinks } from "../../apis/pipelines/events.ts";
import { describeProblem, schemaProblem } from "../../lib/schema-problem.ts";
import { parseYaml } from "../../lib/yaml.ts";
import { defaultRetry } from "./delivery.ts";
import type { EventsOptions } from "./dispatcher.ts";

export const eventsConfigVariable = "SLIPWAY_EVENTS_CONFIG";

const EventsConfig = Type.Object(
  {
    sinks: Type.Optional(EventSinks),
    retry: Type.Optional(
      Type.Object(
        {
          baseSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
          maxSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
          maxAttempts: Type.Optional(Type.Integer({ minimum: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
    timeoutSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  },
  { additionalProperties: false },
);

type EventsConfig = Static<typeof EventsConfig>;

/** A sink must say url or nats, not both (the CRD's CEL rule, checked here for the file). */
function sinkProblem(config: EventsConfig): string | undefined {
  const index = (config.sinks ?? []).findIndex((sink) => Boolean(sink.url) === Boolean(sink.nats));
  return index < 0 ? undefined : `sinks[${index}]: an event sink has exactly one of url or nats`;
}

/** Validates a parsed configuration; the error names the field and the rule. */
export function parseEventsConfig(input: unknown): EventsOptions {
  const config = structuredClone(input ?? {});
  const invalid = schemaProblem(EventsConfig, config);
  const problem = invalid ? describeProblem(invalid) : sinkProblem(config as EventsConfig);
  if (problem) throw new Error(`events configuration: ${problem}`);
  const { sinks, retry, timeoutSeconds } = config as EventsConfig;
  return {
    sinks: sinks ?? [],
    retry: {
      baseMs: (retry?.baseSeconds ?? defaultRetry.baseMs / 1000) * 1000,
      maxMs: (retry?.maxSeconds ?? defaultRetry.maxMs / 1000) * 1000,
      maxAttempts: retry?.maxAttempts ?? defaultRetry.maxAttempts,
    },
    ...(timeoutSeconds === undefined ? {} : { timeoutMs: timeoutSeconds * 1000 }),
  };
}

/** The configuration $SLIPWAY_EVENTS_CONFIG names; none set: no operator sinks, default retry. */
export function eventsConfigFromEnvironment(env: NodeJS.ProcessEnv = process.env): EventsOptions {
  const path = env[eventsConfigVariable];
  if (!path) return {};
  try {
    return parseEventsConfig(parseYaml(readFileSync(path, "utf8")));
  } catch (error) {
    const reason = (error as Error).message.split("\n")[0];
    throw new Error(`${path} (${eventsConfigVariable}): ${reason}`);
  }
}
