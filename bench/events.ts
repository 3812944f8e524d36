/**
 * `npm run bench -- events`: 1,000 Runs finish (their Workflows' status written as Argo would, untimed);
 * an operator started then finds each completion, records its event and delivers it to a local HTTP
 * CloudEvents sink (parsed by the SDK). Timed: operator start → 1,000 events acknowledged and every
 * Run's status saying delivered. Floor, same run: a plain client doing the same work per Run at the
 * same concurrency — one GET (the completion), the status write with the event, the POST of the same
 * event (HTTP binary), the status write saying delivered. Latency: completion recorded → sink receipt.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { KubeConfig } from "@kubernetes/client-node";
import { HTTP } from "cloudevents";
import { crdManifest } from "../src/apis/crd.ts";
import { pipelineKinds } from "../src/apis/pipelines/index.ts";
import { backends } from "../src/pipelines/backends.ts";
import { runController } from "../src/pipelines/controllers/run.ts";
import { afterAttempt, defaultRetry } from "../src/pipelines/events/delivery.ts";
import { type DeliveryRecord, runCompletionEvent } from "../src/pipelines/events/event.ts";
import { sendHttp } from "../src/pipelines/events/transports.ts";
import { types } from "../src/pipelines/types.ts";
import { Api, installArgoCrds, startPipelinesOperator } from "../test/support/fakes/pipelines-operator.ts";
import type { BenchFigures } from "./run.ts";
import { benchControlPlane, median, pool, sleep, until } from "./support.ts";

const runs = 1_000;
const concurrency = runController({ backends }).concurrency ?? 4;
const group = "pipelines.slipway.dev/v1beta1";
const namespaceType = {
  group: "",
  version: "v1",
  kind: "Namespace",
  plural: "namespaces",
  namespaced: false,
};

interface Sink {
  url: string;
  received: Map<string, number>;
  close(): void;
}

async function startSink(): Promise<Sink> {
  const received = new Map<string, number>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const event = HTTP.toEvent({ headers: request.headers, body: Buffer.concat(chunks).toString() });
      if (!Array.isArray(event)) received.set(event.id, Date.now());
      response.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, received, close: () => server.close() };
}

type RunObject = {
  metadata: { name: string };
  status: { provider: { id: string }; events?: DeliveryRecord[] };
};

/** CRDs, a Provider sending to `sink`, a Pipeline, 1,000 synchronized Runs whose Workflows then finish (untimed). */
async function setUp(api: Api, config: KubeConfig, namespace: string, sink: string): Promise<void> {
  for (const kind of pipelineKinds) await api.apply(types.crd, crdManifest(kind) as never);
  await installArgoCrds(api);
  await sleep(2_000);
  await api.create(namespaceType, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  const create = (type: typeof types.run, kind: string, name: string, spec: unknown) =>
    api.create(type, { apiVersion: group, kind, metadata: { name, namespace }, spec } as never);
  await create(types.provider, "Provider", "argo", { type: "argo", eventSinks: [{ url: sink }] });
  await create(types.pipeline, "Pipeline", "train", {
    provider: "argo",
    image: "registry.example/ml/pipeline:1",
    steps: [{ name: "train" }],
  });
  // polls only an hour after a Run is submitted: nothing completes during set-up
  const setup = await startPipelinesOperator(config, { run: { completionPollSeconds: 3600 } });
  const names = Array.from({ length: runs }, (_, i) => `run-${i}`);
  await until(
    "the Pipeline synchronized",
    async () => (await api.get<RunObject>(types.pipeline, namespace, "train"))?.status !== undefined,
    { timeoutMs: 600_000, pollMs: 250 },
  );
  await pool(names, 16, (name) => create(types.run, "Run", name, { provider: "argo", pipeline: "train" }));
  await until(
    "every Run synchronized",
    async () => (await api.list<RunObject>(types.run, namespace)).every((r) => r.status?.provider?.id),
    { timeoutMs: 1_200_000, pollMs: 2_000 },
  );
  await setup.stop();
  const list = await api.list<RunObject>(types.run, namespace);
  await pool(list, 16, (run) =>
    api.mergePatch(types.workflow, namespace, run.status.provider.id, {
      status: { phase: "Succeeded", startedAt: "2026-01-01T00:00:00Z", finishedAt: "2026-01-01T00:01:00Z" },
    }),
  );
}

const delivered = (run: RunObject) => run.status.events?.[0]?.sinks.every((s) => s.delivered) === true;

async function timeOperator(api: Api, config: KubeConfig, namespace: string, sink: Sink) {
  const started = performance.now();
  const operator = await startPipelinesOperator(config, { run: { completionPollSeconds: 3600 } });
  await until("1,000 events acknowledged", async () => sink.received.size >= runs, {
    timeoutMs: 1_200_000,
    pollMs: 100,
  });
  await until(
    "every Run's status says delivered",
    async () => (await api.list<RunObject>(types.run, namespace)).every(delivered),
    { timeoutMs: 600_000, pollMs: 500 },
  );
  const seconds = (performance.now() - started) / 1000;
  await operator.stop();
  const list = await api.list<RunObject>(types.run, namespace);
  const latencies = list.map((run) => {
    const record = run.status.events?.[0] as DeliveryRecord;
    return ((sink.received.get(record.id) ?? 0) - Date.parse(record.recordedAt)) / 1000;
  });
  return { seconds, latencies, list };
}

/** The same GET, event, POST and two status writes per Run by a plain client, the operator stopped. */
async function timeFloor(api: Api, namespace: string, list: RunObject[], sink: Sink): Promise<number> {
  const floorSink = await startSink();
  const started = performance.now();
  await pool(list, concurrency, async (run) => {
    await api.get(types.workflow, namespace, run.status.provider.id);
    const record = { ...(run.status.events?.[0] as DeliveryRecord), recordedAt: new Date().toISOString() };
    const write = (events: DeliveryRecord[]) =>
      api.apply(
        types.run,
        {
          apiVersion: group,
          kind: "Run",
          metadata: { name: run.metadata.name, namespace },
          status: { ...run.status, events },
        } as never,
        "status",
      );
    const pending = {
      ...record,
      sinks: record.sinks.map((s) => ({ sink: s.sink, delivered: false, attempts: 0 })),
    };
    await write([pending]);
    const identity = { provider: { namespace, name: "argo" }, run: { namespace, name: run.metadata.name } };
    const outcome = await sendHttp(floorSink.url, runCompletionEvent(identity, pending), 10_000);
    await write([
      { ...pending, sinks: pending.sinks.map((s) => afterAttempt(s, outcome, Date.now(), defaultRetry)) },
    ]);
  });
  const seconds = (performance.now() - started) / 1000;
  floorSink.close();
  if (floorSink.received.size !== runs || sink.received.size !== runs) throw new Error("an event is missing");
  return seconds;
}

export default async function bench(): Promise<BenchFigures> {
  const plane = await benchControlPlane("events", 1);
  const external = process.env.SLIPWAY_BENCH_KUBECONFIG !== undefined;
  const api = new Api(plane.kubeConfig);
  const namespace = `bench-events-${Date.now().toString(36)}`;
  const sink = await startSink();
  try {
    await setUp(api, plane.kubeConfig, namespace, sink.url);
    const operator = await timeOperator(api, plane.kubeConfig, namespace, sink);
    const floorSeconds = await timeFloor(api, namespace, operator.list, sink);
    const sorted = [...operator.latencies].sort((a, b) => a - b);
    return {
      seconds: Number(operator.seconds.toFixed(2)),
      floor_seconds: Number(floorSeconds.toFixed(2)),
      runs,
      events: sink.received.size,
      concurrency,
      latency_p50_seconds: Number(median(sorted).toFixed(3)),
      latency_p99_seconds: Number((sorted[Math.floor(sorted.length * 0.99)] ?? 0).toFixed(3)),
      control_plane: external ? "external" : "private",
    };
  } finally {
    if (external) await api.delete(namespaceType, "", namespace).catch(() => {});
    sink.close();
    api.close();
    await plane.stop();
  }
}
