/**
 * What a person needs from an object when a wait on it timed out: its kind and name, phase,
 * conditions, container states and, for a pod, its containers' last log lines; then the rest of its
 * status. Never `metadata.managedFields` (often most of an object's size, and nothing a reader needs)
 * and never a ConfigMap's or Secret's values (their keys only).
 */

/** A pod's containers whose logs a timeout message shows (they ran, or run). */
export interface PodContainers {
  namespace: string;
  name: string;
  containers: string[];
}

/** The last log lines per container, keyed by `logKey`; a string is why there are none. */
export type PodLogs = ReadonlyMap<string, string[] | string>;

export const logKey = (namespace: string, pod: string, container: string) =>
  `${namespace}/${pod}/${container}`;

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** Looks like a Kubernetes object: metadata with a name. */
function isObject(value: unknown): value is Json & { metadata: Json } {
  return isRecord(value) && isRecord(value.metadata) && typeof value.metadata.name === "string";
}

const isPod = (value: unknown): value is Json & { metadata: Json } =>
  isObject(value) && (value.kind === "Pod" || (isRecord(value.spec) && Array.isArray(value.spec.containers)));

/** The objects a value holds: itself, the items of a list, or the elements of an array. */
function objectsIn(value: unknown): (Json & { metadata: Json })[] | undefined {
  if (isObject(value)) return [value];
  const items = Array.isArray(value)
    ? value
    : isRecord(value) && Array.isArray(value.items)
      ? value.items
      : undefined;
  if (!items || items.length === 0 || !items.every(isObject)) return undefined;
  return items as (Json & { metadata: Json })[];
}

/** A deep copy without `managedFields` in any `metadata`. */
export function withoutManagedFields(value: unknown): unknown {
  const text = JSON.stringify(value, (key, inner) => (key === "managedFields" ? undefined : inner));
  return text === undefined ? undefined : JSON.parse(text);
}

/** The pods in `value` (a pod, a list or an array of them) with the containers that started. */
export function podsIn(value: unknown): PodContainers[] {
  return (objectsIn(value) ?? []).filter(isPod).map((pod) => {
    const status = isRecord(pod.status) ? pod.status : {};
    const started = [...asArray(status.initContainerStatuses), ...asArray(status.containerStatuses)]
      .filter(isRecord)
      .filter((c) => isRecord(c.state) && (c.state.running || c.state.terminated || isRecord(c.lastState)))
      .map((c) => String(c.name));
    return {
      namespace: String(pod.metadata.namespace ?? ""),
      name: String(pod.metadata.name),
      containers: started,
    };
  });
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}… (cut)` : text);

function condition(c: Json): string {
  const why = [c.reason, c.message].filter(Boolean).join(": ");
  return `${c.type}=${c.status}${why ? ` (${clip(String(why), 300)})` : ""}`;
}

function containerState(state: unknown): string {
  if (!isRecord(state)) return "no state";
  if (isRecord(state.waiting)) {
    const { reason, message } = state.waiting;
    return `waiting ${reason ?? ""}${message ? `: ${clip(String(message), 300)}` : ""}`.trim();
  }
  if (isRecord(state.terminated)) {
    const { reason, exitCode, signal, message } = state.terminated;
    const code = `exit code ${exitCode}${signal ? `, signal ${signal}` : ""}`;
    return `terminated ${reason ?? ""} (${code})${message ? `: ${clip(String(message), 300)}` : ""}`;
  }
  if (isRecord(state.running)) return "running";
  return "no state";
}

function containerLines(status: Json, key: "initContainerStatuses" | "containerStatuses"): string[] {
  const label = key === "initContainerStatuses" ? "init container" : "container";
  return asArray(status[key])
    .filter(isRecord)
    .map((c) => {
      const last =
        isRecord(c.lastState) && Object.keys(c.lastState).length ? containerState(c.lastState) : "";
      const restarts = Number(c.restartCount ?? 0);
      return [
        `  ${label} ${c.name}: ${containerState(c.state)}`,
        c.ready === true ? ", ready" : "",
        restarts ? `, ${restarts} restart(s)` : "",
        last ? `; last: ${last}` : "",
      ].join("");
    });
}

function logLines(pod: PodContainers, logs: PodLogs, tail: number): string[] {
  return pod.containers.flatMap((container) => {
    const got = logs.get(logKey(pod.namespace, pod.name, container));
    if (got === undefined) return [];
    if (typeof got === "string") return [`  logs of ${container}: unavailable (${clip(got, 300)})`];
    const lines = got.slice(-tail);
    if (lines.length === 0) return [`  logs of ${container}: none`];
    return [
      `  last ${lines.length} log line(s) of ${container}:`,
      ...lines.map((line) => `    | ${clip(line, 500)}`),
    ];
  });
}

/** The status without what the lines above already said. */
function restOfStatus(status: Json): string {
  const { phase, conditions, containerStatuses, initContainerStatuses, ...rest } = status;
  return Object.keys(rest).length ? `  status: ${clip(JSON.stringify(rest), 1000)}` : "";
}

function describeOne(object: Json & { metadata: Json }, logs: PodLogs, tail: number): string {
  const { namespace, name, deletionTimestamp } = object.metadata;
  const kind = typeof object.kind === "string" ? object.kind : isPod(object) ? "Pod" : "object";
  const status = isRecord(object.status) ? object.status : undefined;
  const head = [
    `${kind} ${namespace ? `${namespace}/` : ""}${name}`,
    status?.phase ? `phase ${status.phase}` : "",
    deletionTimestamp ? "deleting" : "",
    status ? "" : "no status",
  ].filter(Boolean);
  const lines = [head.join(", ")];
  const conditions = asArray(status?.conditions).filter(isRecord);
  if (conditions.length) lines.push(`  conditions: ${conditions.map(condition).join("; ")}`);
  if (status)
    lines.push(
      ...containerLines(status, "initContainerStatuses"),
      ...containerLines(status, "containerStatuses"),
    );
  if (isPod(object)) for (const pod of podsIn(object)) lines.push(...logLines(pod, logs, tail));
  if (status) lines.push(restOfStatus(status));
  // a ConfigMap's or Secret's values are not a wait's business (and a Secret's never printed)
  for (const field of ["data", "stringData", "binaryData"])
    if (isRecord(object[field]))
      lines.push(`  ${field} keys: ${Object.keys(object[field]).join(", ") || "none"}`);
  return lines.filter(Boolean).join("\n");
}

/**
 * A timeout message's account of `value`: each Kubernetes object in it described (at most `maxObjects`),
 * anything else as JSON without managedFields, cut at 2,000 characters.
 */
export function describeObject(
  value: unknown,
  options: { logs?: PodLogs; tailLines?: number; maxObjects?: number } = {},
): string {
  const { logs = new Map(), tailLines = 20, maxObjects = 10 } = options;
  const objects = objectsIn(value);
  if (!objects) return clip(JSON.stringify(withoutManagedFields(value)) ?? String(value), 2000);
  const described = objects.slice(0, maxObjects).map((object) => describeOne(object, logs, tailLines));
  if (objects.length > maxObjects) described.push(`… and ${objects.length - maxObjects} more`);
  return objects.length === 1 && isObject(value)
    ? (described[0] ?? "")
    : [`${objects.length} object(s):`, ...described].join("\n");
}
