/**
 * A Vertex AI endpoint for tests and benchmarks, on 127.0.0.1 (plaintext gRPC, or TLS with a
 * service account's bearer JWTs checked against its key): PipelineService,
 * ScheduleService and Locations. Every request's wire bytes are first parsed strictly by the
 * official Vertex AI protos (google-cloud-aiplatform from PyPI, in one Python validator per server:
 * vertex-validator.ts), which refuse a field they do not define, a wrong wire type or an unknown
 * enum value with INVALID_ARGUMENT naming the field; then decoded by the protos that
 * @google-cloud/aiplatform ships (build/protos/protos.json) and google-gax's locations proto — the
 * definitions its client encodes with. It keeps jobs and schedules in memory and records every decoded request; a
 * request that breaks a rule Vertex documents (parent, ids, cron with TZ, a job's spec, a
 * Schedule's field behaviours in schedule.proto: REQUIRED, OUTPUT_ONLY, IMMUTABLE; UpdateSchedule's
 * mask, which cannot unset a field nor change the request type) is refused with INVALID_ARGUMENT and
 * recorded as a violation.
 */
import { type KeyObject, verify } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { startVertexValidator, type VertexValidator } from "./vertex-validator.ts";

// biome-ignore lint/suspicious/noExplicitAny: decoded protobuf messages
type Any = any;

const require = createRequire(import.meta.url);
const loaderOptions = { keepCase: false, longs: String, enums: String, defaults: false, oneofs: true };

/** The gRPC definitions of the protos the client library encodes with (its own, and google-gax's locations). */
export function vertexDefinitions(): Any {
  const aiplatform = require("@google-cloud/aiplatform/build/protos/protos.json");
  // google-gax exports no subpath for its protos: found next to its entry point
  const gaxProtos = join(dirname(require.resolve("google-gax")), "../protos");
  const locations = JSON.parse(readFileSync(join(gaxProtos, "locations.json"), "utf8"));
  return {
    ...grpc.loadPackageDefinition(protoLoader.fromJSON(aiplatform, loaderOptions)),
    location: (grpc.loadPackageDefinition(protoLoader.fromJSON(locations, loaderOptions)) as Any).google.cloud
      .location,
  };
}

export interface VertexServer {
  endpoint: { host: string; port: number };
  project: string;
  location: string;
  jobs: Map<string, Any>;
  schedules: Map<string, Any>;
  /** displayName → the most Schedules of that name that were live at once (two would start every run twice). */
  mostLive: Map<string, number>;
  /** Every call decoded, with its bearer JWT when the server checks one (`bearerKey`). */
  requests: { method: string; request: Any; bearer?: Bearer }[];
  violations: string[];
  /** Sets a job's state (and task details) as Vertex would when it finishes (`endTime`: epoch seconds). */
  finishJob(name: string, state: string, taskDetails?: Any[], endTime?: number): void;
  /** Starts a job of the Schedule as Vertex's scheduler would (RUNNING, `scheduleName` set); its name. */
  startScheduledRun(scheduleName: string): string;
  /** The next `count` calls (of `method` only, when given) fail with this gRPC status code. */
  failNext(count: number, code?: number, method?: string): void;
  stop(): Promise<void>;
}

/** A bearer JWT's header and claims. */
export interface Bearer {
  header: Any;
  claims: Any;
}

class Refused extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

const idPattern = /^[a-z0-9][a-z0-9-]{0,127}$/;
const cronPattern = /^TZ=[A-Za-z_/+-]+ (\S+\s+){4}\S+$/;

function checkJob(job: Any, where: string) {
  if (!job?.displayName) throw new Refused(3, `${where}.displayName is required`);
  const spec = job.pipelineSpec?.fields;
  if (!spec?.root || !spec.pipelineInfo || !spec.deploymentSpec)
    throw new Refused(3, `${where}.pipelineSpec is not a pipeline spec`);
  const root = job.runtimeConfig?.gcsOutputDirectory;
  if (root !== undefined && !root.startsWith("gs://"))
    throw new Refused(3, `${where}.runtimeConfig.gcsOutputDirectory must be gs://`);
  for (const [key, value] of Object.entries(job.labels ?? {}))
    if (!/^[a-z][-_a-z0-9]{0,62}$/.test(key) || !/^[-_a-z0-9]{0,63}$/.test(String(value)))
      throw new Refused(3, `${where}.labels: ${key}=${value} is not a valid label`);
}

/** The fields ListPipelineJobs filters by (its proto's list), and `schedule_name` (a job's Schedule: the client libraries list a schedule's jobs by it). */
const filterFields = new Set([
  "pipeline_name",
  "display_name",
  "pipeline_job_user_id",
  "state",
  "create_time",
  "update_time",
  "end_time",
  "template_uri",
  "schedule_name",
]);
const timeFields = new Set(["create_time", "update_time", "end_time", "start_time"]);
const compare: Record<string, (a: number | string, b: number | string) => boolean> = {
  "=": (a, b) => a === b,
  "!=": (a, b) => a !== b,
  "<": (a, b) => a < b,
  ">": (a, b) => a > b,
  "<=": (a, b) => a <= b,
  ">=": (a, b) => a >= b,
};
const camel = (field: string) => field.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
/** A Timestamp as decoded (seconds and nanos) → epoch seconds; unset is 0. */
const epochSeconds = (value: Any) => Number(value?.seconds ?? 0) + Number(value?.nanos ?? 0) / 1e9;

/** An AIP-160 filter of `field op value` terms joined by AND (what Slipway sends), as a predicate. */
function jobFilter(filter: string): (job: Any) => boolean {
  if (!filter) return () => true;
  const terms = filter.split(" AND ").map((term) => {
    const match = /^([a-z_]+)\s*(!=|>=|<=|=|<|>)\s*("([^"]*)"|\S+)$/.exec(term.trim());
    if (!match) throw new Refused(3, `filter: ${JSON.stringify(term)} is not field op value`);
    const [, field = "", op = "=", raw = "", quoted] = match;
    if (!filterFields.has(field)) throw new Refused(3, `filter: PipelineJobs are not filtered by ${field}`);
    const text = quoted ?? raw;
    if (timeFields.has(field) && Number.isNaN(Date.parse(text)))
      throw new Refused(3, `filter: ${field} takes an RFC 3339 time, not ${text}`);
    return { field, op, text };
  });
  return (job) =>
    terms.every(({ field, op, text }) =>
      timeFields.has(field)
        ? (compare[op] as (a: number, b: number) => boolean)(
            epochSeconds(job[camel(field)]),
            Date.parse(text) / 1000,
          )
        : (compare[op] as (a: string, b: string) => boolean)(String(job[camel(field)] ?? ""), text),
    );
}

function listedJobs(all: Any[], request: Any) {
  const order = (request.orderBy ?? "").trim();
  if (order && !/^(create_time|update_time|end_time|start_time)( desc)?$/.test(order))
    throw new Refused(3, `orderBy: ${order} is not a supported field`);
  const [field = "create_time", desc] = (order || "create_time desc").split(" ");
  const sorted = all
    .filter(jobFilter(request.filter ?? ""))
    .sort((a, b) => epochSeconds(a[camel(field)]) - epochSeconds(b[camel(field)]));
  if (desc) sorted.reverse();
  const start = Number(request.pageToken || 0);
  const size = Number(request.pageSize || 100);
  const next = start + size < sorted.length ? String(start + size) : "";
  return { pipelineJobs: sorted.slice(start, start + size), nextPageToken: next };
}

function startScheduledRun(server: VertexServer, scheduleName: string): string {
  const schedule = server.schedules.get(scheduleName);
  if (!schedule) throw new Error(`no schedule ${scheduleName}`);
  const count = Number(schedule.startedRunCount ?? 0) + 1;
  const seconds = String(Math.floor(Date.now() / 1000));
  const name = `${schedule.createPipelineJobRequest.parent}/pipelineJobs/${scheduleName.split("/").pop()}-${count}`;
  server.jobs.set(name, {
    ...schedule.createPipelineJobRequest.pipelineJob,
    name,
    scheduleName,
    state: "PIPELINE_STATE_RUNNING",
    createTime: { seconds },
    startTime: { seconds },
  });
  schedule.startedRunCount = String(count);
  schedule.lastScheduledRunResponse = { scheduledRunTime: { seconds }, runResponse: name };
  return name;
}

/** What a service's handlers share: the server's tables, the location every parent must name. */
interface Scope {
  server: VertexServer;
  parent: string;
  checkParent(value: string): void;
  found(table: Map<string, Any>, name: string): Any;
  operation(name: string): Any;
}

function scopeOf(server: VertexServer, parent: string): Scope {
  return {
    server,
    parent,
    checkParent: (value) => {
      if (value !== parent) throw new Refused(3, `parent must be ${parent}, not ${value}`);
    },
    found: (table, name) => {
      const item = table.get(name);
      if (!item) throw new Refused(5, `${name} not found`);
      return item;
    },
    operation: (name) => ({ name: `${name}/operations/1`, done: true }),
  };
}

const running = ["PIPELINE_STATE_PENDING", "PIPELINE_STATE_RUNNING"];

function pipelineJobHandlers({ server, parent, checkParent, found, operation }: Scope) {
  const { jobs } = server;
  return {
    createPipelineJob: (request: Any) => {
      checkParent(request.parent);
      if (!idPattern.test(request.pipelineJobId ?? ""))
        throw new Refused(3, "pipelineJobId does not match [a-z0-9][a-z0-9-]{0,127}");
      checkJob(request.pipelineJob, "pipelineJob");
      const name = `${parent}/pipelineJobs/${request.pipelineJobId}`;
      if (jobs.has(name)) throw new Refused(6, `${name} already exists`);
      const job = {
        ...request.pipelineJob,
        name,
        state: "PIPELINE_STATE_PENDING",
        createTime: { seconds: String(Math.floor(Date.now() / 1000)) },
      };
      jobs.set(name, job);
      return job;
    },
    getPipelineJob: (request: Any) => found(jobs, request.name),
    listPipelineJobs: (request: Any) => {
      checkParent(request.parent);
      return listedJobs([...jobs.values()], request);
    },
    cancelPipelineJob: (request: Any) => {
      const job = found(jobs, request.name);
      if (!running.includes(job.state)) throw new Refused(9, "the job is not running");
      job.state = "PIPELINE_STATE_CANCELLED";
      return {};
    },
    deletePipelineJob: (request: Any) => {
      const job = found(jobs, request.name);
      if (running.includes(job.state)) throw new Refused(9, "cancel a running job first");
      jobs.delete(request.name);
      return operation(request.name);
    },
  };
}

/** The Schedule message's field behaviours (google.api.field_behavior), by camelCase field name. */
function scheduleFieldBehaviours(): Map<string, string | undefined> {
  const aiplatform = require("@google-cloud/aiplatform/build/protos/protos.json");
  const fields = aiplatform.nested.google.nested.cloud.nested.aiplatform.nested.v1.nested.Schedule.fields;
  return new Map(
    Object.entries(fields as Record<string, Any>).map(([name, field]) => [
      name,
      field.options?.["(google.api.field_behavior)"],
    ]),
  );
}

const behaviours = scheduleFieldBehaviours();
const isSet = (value: Any) => value !== undefined && value !== null && value !== "" && value !== "0";

/** The rules a Schedule as created or updated must keep (schedule.proto). */
function checkSchedule(schedule: Any, checkParent: (value: string) => void) {
  for (const [field, behaviour] of behaviours) {
    if (behaviour === "OUTPUT_ONLY" && isSet(schedule?.[field]))
      throw new Refused(3, `schedule.${field} is output only`);
  }
  if (!schedule?.displayName) throw new Refused(3, "schedule.displayName is required");
  if (!cronPattern.test(schedule?.cron ?? ""))
    throw new Refused(3, `schedule.cron: ${schedule?.cron} is not TZ=… with 5 fields`);
  if (!(Number(schedule.maxConcurrentRunCount) > 0))
    throw new Refused(3, "schedule.maxConcurrentRunCount must be > 0");
  if (
    schedule.maxConcurrentActiveRunCount !== undefined &&
    !(Number(schedule.maxConcurrentActiveRunCount) > 0)
  )
    throw new Refused(3, "schedule.maxConcurrentActiveRunCount must be > 0 when set");
  if (
    schedule.startTime &&
    schedule.endTime &&
    epochSeconds(schedule.startTime) >= epochSeconds(schedule.endTime)
  )
    throw new Refused(3, "schedule.startTime must be before endTime");
  checkParent(schedule.createPipelineJobRequest?.parent);
  checkJob(schedule.createPipelineJobRequest?.pipelineJob, "schedule.createPipelineJobRequest.pipelineJob");
}

/** UpdateSchedule's mask: Schedule fields by their proto names, none output only or immutable. */
function maskedFields(request: Any): string[] {
  const paths: string[] = request.updateMask?.paths ?? [];
  if (paths.length === 0) throw new Refused(3, "update_mask is required");
  return paths.map((path) => {
    const field = camel(path);
    if (!behaviours.has(field) || path !== path.toLowerCase())
      throw new Refused(3, `update_mask: ${path} is not a Schedule field`);
    const behaviour = behaviours.get(field);
    if (behaviour === "OUTPUT_ONLY" || behaviour === "IMMUTABLE")
      throw new Refused(3, `update_mask: ${path} is ${behaviour}`);
    if (field === "createNotebookExecutionJobRequest")
      throw new Refused(3, "update_mask: the scheduled request type cannot be changed");
    return field;
  });
}

function scheduleHandlers({ server, parent, checkParent, found, operation }: Scope) {
  const { schedules } = server;
  const countLive = (displayName: string) => {
    const live = [...schedules.values()].filter((s) => s.displayName === displayName).length;
    server.mostLive.set(displayName, Math.max(server.mostLive.get(displayName) ?? 0, live));
  };
  return {
    createSchedule: (request: Any) => {
      checkParent(request.parent);
      const schedule = request.schedule;
      checkSchedule(schedule, checkParent);
      const name = `${parent}/schedules/${schedules.size + 1}${Math.random().toString(36).slice(2, 8)}`;
      const seconds = String(Math.floor(Date.now() / 1000));
      const created = { ...schedule, name, state: "ACTIVE", createTime: { seconds } };
      schedules.set(name, created);
      countLive(created.displayName);
      return created;
    },
    getSchedule: (request: Any) => found(schedules, request.name),
    /** Replaces the masked fields; "the non-empty fields cannot be unset" (UpdateScheduleRequest). */
    updateSchedule: (request: Any) => {
      const live = found(schedules, request.schedule?.name);
      const fields = maskedFields(request);
      const updated = { ...live };
      for (const field of fields) {
        const value = request.schedule[field];
        if (!isSet(value) && isSet(live[field]) && typeof live[field] !== "boolean")
          throw new Refused(3, `schedule.${field} cannot be unset`);
        updated[field] = value;
      }
      const given = Object.fromEntries(
        Object.entries(updated).filter(
          ([field]) => !["OUTPUT_ONLY", "IMMUTABLE"].includes(behaviours.get(field) ?? ""),
        ),
      );
      checkSchedule(given, checkParent);
      const seconds = String(Math.floor(Date.now() / 1000));
      Object.assign(live, updated, { updateTime: { seconds } });
      return live;
    },
    deleteSchedule: (request: Any) => {
      found(schedules, request.name);
      schedules.delete(request.name);
      return operation(request.name);
    },
  };
}

function locationHandlers({ server, parent }: Scope) {
  return {
    getLocation: (request: Any) => {
      if (request.name !== parent) throw new Refused(5, `location ${request.name} not found`);
      return { name: parent, locationId: server.location };
    },
  };
}

type Handler = (request: Any) => Any;
interface Failures {
  count: number;
  code: number;
  method?: string | undefined;
}

const base64urlJson = (text: string): Any => {
  try {
    return JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    throw new Refused(16, "the bearer token is not a JWT");
  }
};

/** The header and claims of a bearer JWT that `key` verifies (RS256) and that has not expired; UNAUTHENTICATED otherwise. */
function verifiedBearer(authorization: string | undefined, key: KeyObject): Bearer {
  const [scheme, token = ""] = (authorization ?? "").split(" ");
  const [header = "", payload = "", signature = "", ...extra] = token.split(".");
  if (scheme !== "Bearer" || !signature || extra.length > 0)
    throw new Refused(16, "a bearer JWT is required (header authorization)");
  const decoded = { header: base64urlJson(header), claims: base64urlJson(payload) };
  if (decoded.header.alg !== "RS256")
    throw new Refused(16, `the bearer JWT is ${decoded.header.alg}, not RS256`);
  const data = Buffer.from(`${header}.${payload}`);
  if (!verify("RSA-SHA256", data, key, Buffer.from(signature, "base64url")))
    throw new Refused(16, "the bearer JWT is not signed by the service account's key");
  if (!(Number(decoded.claims.exp) > Date.now() / 1000)) throw new Refused(16, "the bearer JWT has expired");
  return decoded;
}

/** A gRPC method as @grpc/proto-loader defines it. */
type MethodDefinition = grpc.MethodDefinition<Any, Any> & {
  originalName: string;
  requestType: { type: { name: string } };
};

/** The full name of a method's request message (in its service's package, as every one served here). */
const requestTypeName = (method: MethodDefinition) =>
  `${method.path.split("/")[1]?.replace(/\.[^.]+$/, "")}.${method.requestType.type.name}`;

/**
 * A method's handler: its request arrives as wire bytes (see rawRequests), is recorded decoded,
 * and reaches `handler` once the official protos take it (the validator); what they refuse is
 * INVALID_ARGUMENT naming the field.
 */
function unary(
  server: VertexServer,
  method: MethodDefinition,
  handler: Handler,
  checks: { failures: Failures; validator: VertexValidator; bearerKey?: KeyObject | undefined },
) {
  const { failures, validator, bearerKey } = checks;
  const name = method.originalName;
  const type = requestTypeName(method);
  return (call: Any, callback: Any) => {
    const body: Buffer = call.request;
    const recorded: VertexServer["requests"][number] = { method: name, request: undefined };
    server.requests.push(recorded);
    const refuse = (error: unknown) => {
      const refused = error instanceof Refused ? error : new Refused(13, String(error));
      if (refused.code === 3) server.violations.push(`${name}: ${refused.message}`);
      callback({ code: refused.code, details: refused.message });
    };
    try {
      recorded.request = method.requestDeserialize(body);
    } catch {
      // not decodable by the client's protos: the validator names what is wrong
    }
    try {
      if (bearerKey) recorded.bearer = verifiedBearer(call.metadata.get("authorization")[0], bearerKey);
      if (failures.count > 0 && (failures.method === undefined || failures.method === name)) {
        failures.count -= 1;
        throw new Refused(failures.code, "injected failure");
      }
    } catch (error) {
      return refuse(error);
    }
    validator
      .problems(type, body)
      .then((problems) => {
        if (problems.length > 0) throw new Refused(3, `${type}: ${problems.join("; ")}`);
        callback(null, handler(recorded.request));
      })
      .catch(refuse);
  };
}

/** A service whose methods hand their handlers the request's wire bytes, undecoded. */
const rawRequests = (service: Record<string, MethodDefinition>) =>
  Object.fromEntries(
    Object.entries(service).map(([name, method]) => [
      name,
      { ...method, requestDeserialize: (bytes: Buffer) => bytes },
    ]),
  );

export interface VertexServerOptions {
  project?: string;
  location?: string;
  /** Serve TLS with this certificate (PEM) instead of plaintext, as Vertex does. */
  tls?: { certPem: string; keyPem: string };
  /** Require on every call a bearer JWT signed by this (a service account key's public) key. */
  bearerKey?: KeyObject;
}

function newServer(
  project: string,
  location: string,
  failures: Failures,
  grpcServer: grpc.Server,
  validator: VertexValidator,
): VertexServer {
  const server: VertexServer = {
    endpoint: { host: "127.0.0.1", port: 0 },
    project,
    location,
    jobs: new Map(),
    schedules: new Map(),
    mostLive: new Map(),
    requests: [],
    violations: [],
    finishJob: (name, state, taskDetails, endTime = 1767225660) => {
      const job = server.jobs.get(name);
      if (!job) throw new Error(`no job ${name}`);
      job.state = state;
      job.endTime = { seconds: String(endTime) };
      if (taskDetails) job.jobDetail = { taskDetails };
    },
    startScheduledRun: (scheduleName) => startScheduledRun(server, scheduleName),
    failNext: (count, code = 14, method) => {
      Object.assign(failures, { count, code, method });
    },
    stop: async () => {
      await new Promise<void>((resolve) => grpcServer.tryShutdown(() => resolve()));
      await validator.stop();
    },
  };
  return server;
}

export async function startVertexServer(options: VertexServerOptions = {}): Promise<VertexServer> {
  const { project = "slipway-test", location = "europe-west4", tls, bearerKey } = options;
  const proto = vertexDefinitions();
  const validator = await startVertexValidator();
  const grpcServer = new grpc.Server();
  const failures: Failures = { count: 0, code: 14 };
  const server = newServer(project, location, failures, grpcServer, validator);
  const scope = scopeOf(server, `projects/${project}/locations/${location}`);
  const serve = (service: Record<string, MethodDefinition>, handlers: Record<string, Handler>) => {
    const methods = Object.values(service);
    const implementation = Object.fromEntries(
      Object.entries(handlers).map(([name, handler]) => {
        const method = methods.find((m) => m.originalName === name);
        if (!method) throw new Error(`the service has no method ${name}`);
        return [name, unary(server, method, handler, { failures, validator, bearerKey })];
      }),
    );
    grpcServer.addService(rawRequests(service), implementation);
  };
  const v1 = proto.google.cloud.aiplatform.v1;
  serve(v1.PipelineService.service, pipelineJobHandlers(scope));
  serve(v1.ScheduleService.service, scheduleHandlers(scope));
  serve(proto.location.Locations.service, locationHandlers(scope));
  const credentials = tls
    ? grpc.ServerCredentials.createSsl(null, [
        { cert_chain: Buffer.from(tls.certPem), private_key: Buffer.from(tls.keyPem) },
      ])
    : grpc.ServerCredentials.createInsecure();
  server.endpoint.port = await new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync("127.0.0.1:0", credentials, (error, port) =>
      error ? reject(error) : resolve(port),
    ),
  ).catch(async (error) => {
    await validator.stop();
    throw error;
  });
  return server;
}
