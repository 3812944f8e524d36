/**
 * At least once across an operator restart: the operator is SIGKILLed while its sink holds the
 * completion's event unanswered; a new operator process delivers it with the same id, and a third
 * does not send the acknowledged event again.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, inject, it, onTestFinished } from "vitest";
import { pipelineKinds } from "../../../src/apis/pipelines/index.ts";
import { packageRoot } from "../../../src/dev/paths.ts";
import { types } from "../../../src/pipelines/types.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { Api, installArgoCrds } from "../../support/fakes/pipelines-operator.ts";
import type { Activity } from "../../support/reconciles.ts";
import { acknowledged, type EventSinkServer, startEventSink } from "./event-sink.ts";
import {
  createPipeline,
  createProvider,
  createRun,
  finishWorkflow,
  synchronizedRun,
} from "./event-support.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

let api: Api;
let sink: EventSinkServer;
let configFile: string;

beforeAll(async () => {
  api = new Api(adminConfig());
  await installCrds(pipelineKinds);
  await installArgoCrds(api);
  sink = await startEventSink({ hang: true });
  configFile = join(tmpdir(), `slipway-events-${process.pid}.json`);
  await writeFile(
    configFile,
    JSON.stringify({
      sinks: [{ url: sink.url }],
      retry: { baseSeconds: 0.2, maxSeconds: 1 },
      timeoutSeconds: 60,
    }),
  );
});

afterAll(async () => {
  api?.close();
  await sink?.close();
});

/** The last activity each operator process printed (event-operator-process.ts). */
const activities = new Map<ChildProcess, Activity>();

/** Starts the operator process for `namespace`; resolves once its controllers run. */
async function startOperator(namespace: string): Promise<ChildProcess> {
  const node = join(packageRoot, "node_modules/node/bin/node");
  const child = spawn(
    node,
    [join(import.meta.dirname, "event-operator-process.ts"), inject("kubeconfig"), namespace],
    {
      env: { ...process.env, SLIPWAY_EVENTS_CONFIG: configFile },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  child.stdout?.on("data", (chunk: Buffer) => {
    const last = chunk
      .toString()
      .match(/^activity (.+)$/gm)
      ?.at(-1);
    if (last) activities.set(child, JSON.parse(last.slice("activity ".length)));
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
    child.once("exit", (code) => reject(new Error(`operator exited with ${code} before it was ready`)));
  });
  return child;
}

async function kill(child: ChildProcess) {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

it("SIGKILL between completion and delivery → delivered after the restart, same id; never sent again once acknowledged", async () => {
  const ns = await testNamespace("evr");
  const first = await startOperator(ns);
  await createProvider(api, ns);
  await createPipeline(api, ns, "train");
  await createRun(api, ns, "ok", {});
  const run = await synchronizedRun(api, ns, "ok");
  await finishWorkflow(api, ns, run.status.provider.id, "Succeeded");
  await eventually(
    "the sink holds the event, unanswered",
    async () => sink.received,
    (l) => l.length === 1,
  );
  await kill(first);

  const recorded: Any = await api.get(types.run, ns, "ok");
  const [record] = recorded.status.events;
  expect(record.sinks).toEqual([{ sink: sink.url, delivered: false, attempts: 0 }]);
  expect(sink.received[0]?.event.id).toBe(record.id);

  sink.behaviour = {};
  const second = await startOperator(ns);
  const delivered: Any = await eventually(
    "delivered by the new operator",
    () => api.get(types.run, ns, "ok"),
    (r: Any) => r?.status?.events?.[0]?.sinks?.[0]?.delivered === true,
  );
  expect(delivered.status.events[0]).toMatchObject({
    id: record.id,
    sinks: [{ delivered: true, attempts: 1 }],
  });
  expect(acknowledged(sink).map((r) => r.event.id)).toEqual([record.id]);
  await kill(second);

  const third = await startOperator(ns);
  // its first reconciles (every Run its cache listed, this one too) are done
  await eventually(
    "the third operator's first reconciles done",
    async () => activities.get(third),
    (a) => a !== undefined && a.reconciles > 0 && a.pending === 0,
  );
  expect(sink.received.map((r) => [r.event.id, r.status])).toEqual([
    [record.id, 0],
    [record.id, 202],
  ]);
});
