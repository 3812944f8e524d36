/**
 * The Vertex test server's validator (test/support/fakes/vertex-validator.py) is live: the server
 * refuses a body the official Vertex AI protos (google-cloud-aiplatform) refuse, naming the field;
 * and every request Slipway builds (src/pipelines/vertex/requests.ts), in the object form it hands
 * to the client library, is what the official messages define.
 */
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProviderConfig, RunDefinition, RunScheduleDefinition } from "../../../src/pipelines/backend.ts";
import { outboundPolicy } from "../../../src/pipelines/outbound-policy.ts";
import { schedulePolicy } from "../../../src/pipelines/schedule-policy.ts";
import {
  pipelineJob,
  schedule,
  scheduledJobsRequest,
  scheduleUpdate,
  toStruct,
} from "../../../src/pipelines/vertex/requests.ts";
import { locationName, vertexSettings } from "../../../src/pipelines/vertex/settings.ts";
import {
  startVertexServer,
  type VertexServer,
  vertexDefinitions,
} from "../../support/fakes/vertex-server.ts";
import { startVertexValidator, type VertexValidator } from "../../support/fakes/vertex-validator.ts";

// biome-ignore lint/suspicious/noExplicitAny: decoded protobuf definitions
type Any = any;

const v1 = "google.cloud.aiplatform.v1";
let vertex: VertexServer;
let validator: VertexValidator;

beforeAll(async () => {
  [vertex, validator] = await Promise.all([startVertexServer(), startVertexValidator()]);
});

afterAll(async () => {
  await Promise.all([vertex?.stop(), validator?.stop()]);
});

/** A protobuf field's key: its number and wire type (0 varint, 2 length-delimited). */
const key = (field: number, wireType: number) => varint((field << 3) | wireType);
function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest > 0x7f) {
    bytes.push((rest & 0x7f) | 0x80);
    rest >>>= 7;
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}
const lengthDelimited = (field: number, bytes: Buffer) =>
  Buffer.concat([key(field, 2), varint(bytes.length), bytes]);

const definitions = vertexDefinitions().google.cloud.aiplatform.v1;

/** CreateScheduleRequest's wire bytes: the client library's encoding of `request`, with `extra` bytes in its schedule. */
function createScheduleBytes(request: Any, extra: Buffer): Buffer {
  const { schedule: fields, ...rest } = request;
  const scheduleBytes = Buffer.concat([definitions.Schedule.serialize(fields), extra]);
  return Buffer.concat([
    definitions.CreateScheduleRequest.serialize(rest),
    lengthDelimited(2, scheduleBytes),
  ]);
}

/** Sends wire bytes to the server's CreateSchedule; the gRPC error it answers with. */
function sendRaw(bytes: Buffer): Promise<grpc.ServiceError | undefined> {
  const client = new grpc.Client(`127.0.0.1:${vertex.endpoint.port}`, grpc.credentials.createInsecure());
  return new Promise((resolve) =>
    client.makeUnaryRequest(
      `/${v1}.ScheduleService/CreateSchedule`,
      (b: Buffer) => b,
      (b: Buffer) => b,
      bytes,
      (error) => {
        client.close();
        resolve(error ?? undefined);
      },
    ),
  ).then((error) => error as grpc.ServiceError | undefined);
}

const parent = "projects/slipway-test/locations/europe-west4";
const scheduleFields = {
  displayName: "team.nightly",
  cron: "TZ=UTC 0 0 * * *",
  maxConcurrentRunCount: 1,
  createPipelineJobRequest: {
    parent,
    pipelineJob: {
      displayName: "team.nightly",
      pipelineSpec: toStruct({ root: {}, pipelineInfo: { name: "nightly" }, deploymentSpec: {} }),
    },
  },
};
/** A Schedule field's number in the client library's proto. */
const scheduleField = (name: string) =>
  definitions.Schedule.type.field.find((f: Any) => f.name === name).number;

describe("the Vertex test server refuses what the official protos refuse", () => {
  it("an unknown field and a wrong type: INVALID_ARGUMENT naming the field, recorded as a violation", async () => {
    const unknown = await sendRaw(
      createScheduleBytes({ parent, schedule: scheduleFields }, lengthDelimited(999, Buffer.from("x"))),
    );
    expect(unknown?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(unknown?.details).toBe(
      `${v1}.CreateScheduleRequest: schedule: field 999 is not a field of ${v1}.Schedule`,
    );
    // cron is a string: sent as a varint
    const { cron: _, ...noCron } = scheduleFields;
    const wrongType = await sendRaw(
      createScheduleBytes(
        { parent, schedule: noCron },
        Buffer.concat([key(scheduleField("cron"), 0), varint(5)]),
      ),
    );
    expect(wrongType?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(wrongType?.details).toBe(
      `${v1}.CreateScheduleRequest: schedule.cron: wire type 0 cannot be of type string`,
    );
    expect(vertex.violations).toEqual([
      `createSchedule: ${unknown?.details}`,
      `createSchedule: ${wrongType?.details}`,
    ]);
    expect(vertex.schedules.size).toBe(0);
  });

  it("takes the same body without them (the rest of the server's rules then apply)", async () => {
    vertex.violations.length = 0;
    expect(await sendRaw(createScheduleBytes({ parent, schedule: scheduleFields }, Buffer.alloc(0)))).toBe(
      undefined,
    );
    expect(vertex.violations).toEqual([]);
    expect(vertex.schedules.size).toBe(1);
  });
});

const provider: ProviderConfig = {
  key: { namespace: "ml", name: "vertex" },
  spec: {
    type: "vertex",
    parameters: {
      project: "ml-project",
      location: "europe-west4",
      serviceAccount: "runner@ml-project.iam.gserviceaccount.com",
      network: "projects/ml-project/global/networks/default",
    },
    pipelineRootStorage: "gs://ml-bucket/runs",
    defaultCaching: { enabled: true },
  } as never,
  version: "p1",
};
const settings = vertexSettings(provider, outboundPolicy({ ambientCredentialsNamespaces: ["*"] }));
const now = Date.parse("2026-06-01T00:00:00Z");

const run: RunDefinition = {
  owner: { object: { metadata: { uid: "u-1" } } as never, kind: "Run", namespace: "team", name: "train-1" },
  pipeline: {
    owner: { object: {} as never, kind: "Pipeline", namespace: "team", name: "train" },
    name: "train",
    version: "v1",
    spec: {
      provider: "ml/vertex",
      image: "alpine",
      parameters: [
        { name: "dataset", default: "d0" },
        { name: "epochs", default: "3" },
        { name: "rate", default: "0.5" },
        { name: "shuffle", default: "true" },
      ],
      steps: [{ name: "train", command: ["sh", "-c", "echo {{workflow.parameters.dataset}}"] }],
    } as never,
  },
  parameters: [
    { name: "dataset", value: "d1" },
    { name: "epochs", value: "5" },
    { name: "rate", value: "0.1" },
    { name: "shuffle", value: "false" },
  ],
  artifacts: [],
};
const scheduled = (policy: Parameters<typeof schedulePolicy>[0]): RunScheduleDefinition => ({
  ...run,
  owner: { ...run.owner, kind: "RunSchedule" },
  schedule: { cronExpression: "@daily", startTime: "2026-07-01T00:00:00Z", endTime: "2026-12-31T00:00:00Z" },
  ...schedulePolicy(policy),
});

describe("the requests Slipway builds are what the official Vertex AI messages define", () => {
  const name = `${locationName(settings)}/schedules/1`;
  const requests: [string, object][] = [
    [
      "CreatePipelineJobRequest",
      {
        parent: locationName(settings),
        pipelineJobId: "team-train-1",
        pipelineJob: pipelineJob(run, provider, settings),
      },
    ],
    ...[{}, { concurrencyPolicy: "Allow" as const, maxConcurrency: 3, catchUp: true }].flatMap(
      (policy): [string, object][] => [
        [
          "CreateScheduleRequest",
          { parent: locationName(settings), schedule: schedule(scheduled(policy), provider, settings, now) },
        ],
        ["UpdateScheduleRequest", scheduleUpdate(name, scheduled(policy), provider, settings, now)],
      ],
    ),
    [
      "ListPipelineJobsRequest",
      scheduledJobsRequest(locationName(settings), name, "2026-06-01T00:00:00Z", "100"),
    ],
    ["GetPipelineJobRequest", { name: `${locationName(settings)}/pipelineJobs/team-train-1` }],
    ["CancelPipelineJobRequest", { name: `${locationName(settings)}/pipelineJobs/team-train-1` }],
    ["DeletePipelineJobRequest", { name: `${locationName(settings)}/pipelineJobs/team-train-1` }],
    ["DeleteScheduleRequest", { name }],
  ];
  const getLocation = { name: locationName(settings) };

  it.each(requests)("%s", async (type, request) => {
    expect(await validator.problems(`${v1}.${type}`, request)).toEqual([]);
  });

  it("GetLocationRequest", async () => {
    expect(await validator.problems("google.cloud.location.GetLocationRequest", getLocation)).toEqual([]);
  });

  it("a field the client library would drop silently, a wrong type and an enum name the proto lacks are refused", async () => {
    const built = schedule(scheduled({}), provider, settings, now);
    expect(
      await validator.problems(`${v1}.CreateScheduleRequest`, {
        parent,
        schedule: { ...built, catchup: true, maxConcurrentRunCount: "one", state: "RUNNING" },
      }),
    ).toEqual([
      `schedule.maxConcurrentRunCount: "one" is not of type int64`,
      `schedule.catchup: catchup is not a field of ${v1}.Schedule`,
      `schedule.state: "RUNNING" is not a value of ${v1}.Schedule.State`,
    ]);
  });
});
