import { type TSchema, type TUnsafe, Type } from "@sinclair/typebox";
import { Conditions } from "../condition.ts";
import type { CelRule } from "../kind.ts";
import { validations } from "../schema.ts";

/** A string enum as a CRD schema accepts it (`enum`, not TypeBox's anyOf of consts). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: Record<string, unknown> = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...options });
}

export const group = "pipelines.slipway.dev";
export const version = "v1beta1";

const dnsLabel = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const dnsSubdomain = `${dnsLabel}(\\.${dnsLabel})*`;

/** A Provider named as `name` (same namespace) or `namespace/name`. */
export const ProviderReference = Type.String({
  description: "The Provider that runs this resource: `name` (same namespace) or `namespace/name`.",
  pattern: `^(${dnsLabel}/)?${dnsSubdomain}$`,
  maxLength: 317,
});

/** A Pipeline named as `name` or `name:version`. */
export const PipelineReference = Type.String({
  description: "The Pipeline to run: `name`, or `name:version` to pin a version.",
  pattern: `^${dnsSubdomain}(:[a-z0-9]+)?$`,
  maxLength: 317,
});

export const NamedValue = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 253 }), value: Type.String({ maxLength: 65536 }) },
  { additionalProperties: false },
);

function listMap<T extends TSchema>(items: T, description: string) {
  return Type.Array(items, {
    description,
    maxItems: 256,
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["name"],
  });
}

export const NamedValues = (description: string) => listMap(NamedValue, description);

export const RunConfigurationReference = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 253,
      description: "A RunConfiguration in the same namespace.",
    }),
    outputArtifact: Type.String({
      minLength: 1,
      maxLength: 253,
      description: "The artifact of its latest succeeded run whose location becomes the value.",
    }),
  },
  { additionalProperties: false },
);

export const Parameter = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 253 }),
    value: Type.Optional(Type.String({ maxLength: 65536 })),
    valueFrom: Type.Optional(
      Type.Object({ runConfigurationRef: RunConfigurationReference }, { additionalProperties: false }),
    ),
  },
  {
    additionalProperties: false,
    ...validations({
      rule: "has(self.value) != has(self.valueFrom)",
      message: "a parameter has exactly one of value or valueFrom",
    }),
  },
);

export const Parameters = listMap(Parameter, "Run parameters: each has a value or a valueFrom.");

/** An output artifact of a run: `path` is `<step>:<artifact>` in the pipeline. */
export const OutputArtifact = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 253 }),
    path: Type.String({
      pattern: "^[a-zA-Z0-9][-a-zA-Z0-9_.]*:[a-zA-Z0-9][-a-zA-Z0-9_.]*$",
      description: "`<step>:<artifact>`: the step's output artifact whose location is recorded.",
    }),
  },
  { additionalProperties: false },
);

/** Where a run's output artifact ended up. */
export const ArtifactLocation = Type.Object({ name: Type.String(), location: Type.String() });

/** A cron schedule: 5 or 6 fields, or a descriptor such as `@hourly` (the controller checks it again with croner). */
export const cronPattern =
  "^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|([0-9A-Za-z*?/,#-]+\\s+){4,5}[0-9A-Za-z*?/,#-]+)$";

export const Schedule = Type.Object(
  {
    cronExpression: Type.String({
      pattern: cronPattern,
      maxLength: 256,
      description: "Cron syntax (5 or 6 fields) or @yearly/@monthly/@weekly/@daily/@hourly.",
    }),
    startTime: Type.Optional(Type.String({ format: "date-time" })),
    endTime: Type.Optional(Type.String({ format: "date-time" })),
  },
  {
    additionalProperties: false,
    ...validations({
      rule: "!has(self.startTime) || !has(self.endTime) || timestamp(self.startTime) < timestamp(self.endTime)",
      message: "startTime must be before endTime",
    }),
  },
);

export const concurrencyPolicies = ["Allow", "Forbid", "Replace"] as const;
export type ConcurrencyPolicy = (typeof concurrencyPolicies)[number];

/**
 * What a schedule does when a run is due while earlier runs still go, and with the runs it missed
 * (the same fields on a RunSchedule's spec and on each of a RunConfiguration's schedules).
 */
export const schedulePolicyFields = {
  concurrencyPolicy: Type.Optional(
    StringEnum(concurrencyPolicies, {
      description:
        "When a run is due while its earlier runs still go: Forbid (default) runs one at a time (argo and vertex skip the due run, kfp starts the latest one due once the running one ends), Allow starts it (at most maxConcurrency at once), Replace stops the running one and starts it (argo only). argo: CronWorkflow concurrencyPolicy; kfp: max_concurrency; vertex: maxConcurrentRunCount.",
    }),
  ),
  maxConcurrency: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 10,
      description:
        "With concurrencyPolicy Allow: at most this many runs at once (kfp: max_concurrency, vertex: maxConcurrentRunCount and maxConcurrentActiveRunCount; unset: 10 on kfp and vertex, no bound on argo, which cannot bound it). Forbid and Replace run one at a time.",
    }),
  ),
  catchUp: Type.Optional(
    Type.Boolean({
      description:
        "Start the runs missed while the scheduler was down or over maxConcurrency (default false; argo: the latest missed run within startingDeadlineSeconds, which it needs; kfp: no_catchup=false; vertex: allowQueueing). A startTime in the past never starts missed runs.",
    }),
  ),
  startingDeadlineSeconds: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 31_536_000,
      description:
        "Bounds catchUp: a missed run due longer ago than this is not started (argo: CronWorkflow startingDeadlineSeconds; kfp and vertex cannot bound catch-up and refuse it).",
    }),
  ),
};

/** The schedule policy's rules, on the object that holds schedulePolicyFields. */
export const schedulePolicyRules: CelRule[] = [
  {
    rule: "!has(self.maxConcurrency) || self.maxConcurrency == 1 || (has(self.concurrencyPolicy) && self.concurrencyPolicy == 'Allow')",
    message: "maxConcurrency above 1 needs concurrencyPolicy Allow (Forbid and Replace run one at a time)",
    fieldPath: ".maxConcurrency",
  },
  {
    rule: "!has(self.startingDeadlineSeconds) || (has(self.catchUp) && self.catchUp)",
    message: "startingDeadlineSeconds bounds catch-up: it needs catchUp: true",
    fieldPath: ".startingDeadlineSeconds",
  },
];

export const syncStates = ["Creating", "Updating", "Succeeded", "Deleting", "Deleted", "Failed"] as const;
export type SyncStateName = (typeof syncStates)[number];
export const SyncState = StringEnum(syncStates);

/** The status every pipeline resource shares. */
export const synchronizedStatus = {
  provider: Type.Optional(
    Type.Object({
      name: Type.String({ description: "`namespace/name` of the Provider" }),
      id: Type.Optional(Type.String({ description: "The id the backend gave" })),
      configVersion: Type.Optional(
        Type.String({ description: "Version of the Provider spec the backend object has" }),
      ),
    }),
  ),
  state: Type.Optional(SyncState),
  version: Type.Optional(Type.String({ description: "Hash of the spec the backend has" })),
  failedAttempts: Type.Optional(Type.Integer({ minimum: 0 })),
  retryAt: Type.Optional(
    Type.String({ format: "date-time", description: "When a Failed resource is retried" }),
  ),
  observedGeneration: Type.Optional(Type.Integer()),
  conditions: Type.Optional(Conditions),
};

export const providerColumns = [
  { name: "Provider", type: "string" as const, jsonPath: ".spec.provider" },
  { name: "Sync", type: "string" as const, jsonPath: ".status.state" },
];

/** A map of strings (`additionalProperties`, which CRD schemas accept; TypeBox's Record uses patternProperties). */
export function StringMap(options: Record<string, unknown> = {}): TUnsafe<Record<string, string>> {
  return Type.Unsafe<Record<string, string>>({
    type: "object",
    additionalProperties: { type: "string" },
    ...options,
  });
}

export const dnsLabelPattern = `^${dnsLabel}$`;
