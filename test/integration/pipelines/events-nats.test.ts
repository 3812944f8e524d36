/**
 * A NATS sink with a real nats-server on 127.0.0.1: a Provider's `eventSinks: [{nats}]` → a subscriber
 * receives the run-completion event (binary mode, read by the CloudEvents SDK's parser); with the
 * server down the event is retried (status and condition say so) and, once the server is back,
 * delivered with the same id. A JetStream stream on the subject keeps every message the server took,
 * across the restart, so the test sees what arrived while no subscriber was connected.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type Msg, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { pipelineKinds } from "../../../src/apis/pipelines/index.ts";
import type { Manager } from "../../../src/kube/manager.ts";
import { EventDispatcher } from "../../../src/pipelines/events/dispatcher.ts";
import { types } from "../../../src/pipelines/types.ts";
import { skipFor } from "../../support/allowed-skips.ts";
import { adminConfig, eventually, isOwnNamespace, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { Api, installArgoCrds, startPipelinesOperator } from "../../support/fakes/pipelines-operator.ts";
import {
  createPipeline,
  createProvider,
  createRun,
  finishWorkflow,
  modelOutput,
  succeededRunData,
  synchronizedRun,
} from "./event-support.ts";
import {
  type NatsServer,
  natsEvent,
  natsMissing,
  natsServer,
  natsServerBinary,
} from "./events-nats-server.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

const binary = natsServerBinary();
const subject = "runs.done";
const stream = "RUNS";

let api: Api;
let server: NatsServer;
let storeDir: string;
let subscriber: NatsConnection;
let dispatcher: EventDispatcher;
let operator: Manager;

beforeAll(async () => {
  if (!binary) return;
  api = new Api(adminConfig());
  await installCrds(pipelineKinds);
  await installArgoCrds(api);
  storeDir = await mkdtemp(join(tmpdir(), "slipway-nats-"));
  server = await natsServer(binary, storeDir);
  await server.start();
  subscriber = await connect({
    servers: server.url.replace("nats://", ""),
    reconnectTimeWait: 100,
    maxReconnectAttempts: -1,
  });
  const created = await subscriber.request(
    `$JS.API.STREAM.CREATE.${stream}`,
    JSON.stringify({ name: stream, subjects: [subject], storage: "file", allow_direct: true }),
    { timeout: 5_000 },
  );
  expect(created.json<Any>().error).toBeUndefined();
  dispatcher = new EventDispatcher({
    retry: { baseMs: 200, maxMs: 1_000, maxAttempts: 1_000 },
    timeoutMs: 1_000,
  });
  operator = await startPipelinesOperator(adminConfig(), {
    serves: isOwnNamespace,
    run: { defaultTtlSeconds: 3600, completionPollSeconds: 1 },
    events: dispatcher,
  });
});

afterAll(async () => {
  await operator?.stop();
  await dispatcher?.close();
  await subscriber?.close();
  await server?.stop();
  api?.close();
  if (storeDir) await rm(storeDir, { recursive: true, force: true });
});

/** Every message the stream holds, as the CloudEvents SDK reads it (JetStream's direct get). */
async function storedEvents() {
  const info = (
    await subscriber.request(`$JS.API.STREAM.INFO.${stream}`, "", { timeout: 5_000 })
  ).json<Any>();
  const events = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages; seq++) {
    const message = await subscriber.request(`$JS.API.DIRECT.GET.${stream}`, JSON.stringify({ seq }), {
      timeout: 5_000,
    });
    events.push(natsEvent(message.headers, message.string()));
  }
  return events;
}

const firstMessage = (messages: AsyncIterable<Msg>) =>
  Promise.race([
    (async () => {
      for await (const message of messages) return message;
      throw new Error("the subscription closed");
    })(),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error("no NATS message in 60 s")), 60_000)),
  ]);

const natsSink = (run: Any) => run?.status?.events?.[0]?.sinks?.[0];

it(
  "a Provider's NATS sink: the subscriber gets the event; the server down → retried, then delivered with the same id",
  skipFor(binary ? "" : natsMissing),
  async () => {
    const ns = await testNamespace("evn");
    await createProvider(api, ns, { eventSinks: [{ nats: { server: server.url, subject } }] });
    await createPipeline(api, ns, "train");
    const subscription = subscriber.subscribe(subject);
    await subscriber.flush();
    await createRun(api, ns, "first", { artifacts: [{ name: "model", path: "train:model" }] });
    const first = await synchronizedRun(api, ns, "first");
    await finishWorkflow(api, ns, first.status.provider.id, "Succeeded", modelOutput);
    const message = await firstMessage(subscription);
    subscription.unsubscribe();
    const received = natsEvent(message.headers, message.string());
    const delivered: Any = await eventually(
      "first: delivered",
      () => api.get(types.run, ns, "first"),
      (r) => natsSink(r)?.delivered === true,
    );
    expect(natsSink(delivered)).toMatchObject({ sink: `${server.url}/${subject}`, attempts: 1 });
    expect(received).toMatchObject({
      specversion: "1.0",
      type: "dev.slipway.pipelines.run-completion",
      id: delivered.status.events[0].id,
      datacontenttype: "application/json",
    });
    expect(received.data).toEqual(succeededRunData(ns, "first", first.status.provider.id));

    await server.stop();
    await createRun(api, ns, "second", {});
    const second = await synchronizedRun(api, ns, "second");
    await finishWorkflow(api, ns, second.status.provider.id, "Failed");
    const retrying: Any = await eventually(
      "second: attempts fail while the server is down",
      () => api.get(types.run, ns, "second"),
      (r) => natsSink(r)?.attempts >= 2,
    );
    expect(natsSink(retrying)).toMatchObject({ delivered: false, lastError: expect.any(String) });
    expect(retrying.status.conditions.find((c: Any) => c.type === "EventsDelivered")).toMatchObject({
      status: "Unknown",
      reason: "Retrying",
    });

    await server.start();
    const recovered: Any = await eventually(
      "second: delivered once the server is back",
      () => api.get(types.run, ns, "second"),
      (r) => natsSink(r)?.delivered === true,
    );
    const id = recovered.status.events[0].id;
    expect(natsSink(recovered).attempts).toBeGreaterThan(natsSink(retrying).attempts);
    const stored = await storedEvents();
    const ofSecond = stored.filter((event) => (event.data?.run as Any)?.name === "second");
    expect(ofSecond.length).toBeGreaterThanOrEqual(1); // at least once: a publish buffered while down may arrive too
    expect(ofSecond.every((event) => event.id === id && event.data?.status === "Failed")).toBe(true);
    expect(stored.filter((event) => event.id === received.id)).toHaveLength(1);
  },
);
