/** Provider, Pipeline and Run set-up for the event tests and bench, and a Workflow finished as Argo would. */

import { expect } from "vitest";
import type { Manager } from "../../../src/kube/manager.ts";
import { types } from "../../../src/pipelines/types.ts";
import { eventually } from "../../support/cluster.ts";
import type { Api } from "../../support/fakes/pipelines-operator.ts";
import { reconcileCounter } from "../../support/reconciles.ts";
import { acknowledged, type EventSinkServer } from "./event-sink.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

export const group = "pipelines.slipway.dev/v1beta1";

export async function createProvider(api: Api, namespace: string, spec: Record<string, unknown> = {}) {
  await api.create(types.provider, {
    apiVersion: group,
    kind: "Provider",
    metadata: { name: "argo", namespace },
    spec: { type: "argo", ...spec },
  });
  return eventually(
    "Provider argo Ready",
    () => api.get<Any>(types.provider, namespace, "argo"),
    (p) => p?.status?.conditions?.some((c: Any) => c.type === "Ready" && c.status === "True"),
  );
}

export async function createPipeline(api: Api, namespace: string, name: string) {
  await api.create(types.pipeline, {
    apiVersion: group,
    kind: "Pipeline",
    metadata: { name, namespace },
    spec: { provider: "argo", image: "registry.example/ml/pipeline:1", steps: [{ name: "train" }] },
  });
  return eventually(
    `Pipeline ${name} Succeeded`,
    () => api.get<Any>(types.pipeline, namespace, name),
    (p) => p?.status?.state === "Succeeded",
  );
}

export async function createRun(api: Api, namespace: string, name: string, spec: Record<string, unknown>) {
  await api.create(types.run, {
    apiVersion: group,
    kind: "Run",
    metadata: { name, namespace },
    spec: { provider: "argo", pipeline: "train", ...spec },
  });
}

export function synchronizedRun(api: Api, namespace: string, name: string): Promise<Any> {
  return eventually(
    `Run ${name} synchronized`,
    () => api.get<Any>(types.run, namespace, name),
    (r) => r?.status?.state === "Succeeded",
  );
}

/** Writes a Workflow's final status as Argo's workflow-controller does; `outputs`: step → its output artifacts. */
export async function finishWorkflow(
  api: Api,
  namespace: string,
  name: string,
  phase: "Succeeded" | "Failed",
  outputs: Record<string, unknown[]> = {},
) {
  const nodes = Object.fromEntries(
    Object.entries(outputs).map(([step, artifacts]) => [
      `${name}-${step}-1234567890`,
      {
        id: `${name}-${step}-1234567890`,
        name: `${name}.${step}`,
        displayName: step,
        type: "Pod",
        templateName: `step-${step}`,
        phase: "Succeeded",
        outputs: { artifacts },
      },
    ]),
  );
  await api.mergePatch(types.workflow, namespace, name, {
    status: { phase, startedAt: "2026-01-01T00:00:00Z", finishedAt: "2026-01-01T00:01:00Z", nodes },
  });
}

/** The model artifact an event test's run outputs (finishWorkflow's `outputs`). */
export const modelOutput = { train: [{ name: "model", s3: { bucket: "models", key: "m1.tgz" } }] };

/** The event data of Run `name` (backend id `runId`) of Provider argo, finished Succeeded with modelOutput. */
export const succeededRunData = (namespace: string, name: string, runId: string) => ({
  provider: { namespace, name: "argo" },
  run: { namespace, name },
  runId,
  status: "Succeeded",
  startedAt: "2026-01-01T00:00:00Z",
  finishedAt: "2026-01-01T00:01:00Z",
  artifacts: [{ name: "model", location: "s3://models/m1.tgz" }],
});

/**
 * Waits until `sink` acknowledged one event per run of `expected` (run id → status), then checks
 * each came once, as a completion of RunSchedule `schedule` on Provider `provider`, and that two more
 * polls of it by `operator` send nothing again. The SDK's parser refused no request.
 */
export async function scheduledEventsOnce(
  sink: EventSinkServer,
  expected: Record<string, "Succeeded" | "Failed">,
  where: { namespace: string; provider: string; schedule: string },
  operator: Manager,
) {
  const count = Object.keys(expected).length;
  await eventually(
    `${count} scheduled completion(s) delivered`,
    async () => acknowledged(sink),
    (l) => l.length >= count,
  );
  const polls = reconcileCounter(operator, "runschedule");
  await eventually(
    "two more polls",
    async () => polls(where.namespace, where.schedule),
    (n) => n >= 2,
  );
  const data = acknowledged(sink).map((r) => r.event.data as Any);
  expect(Object.fromEntries(data.map((d) => [d.runId, d.status]))).toEqual(expected);
  expect(data).toHaveLength(count);
  for (const d of data)
    expect(d).toMatchObject({
      provider: { namespace: where.namespace, name: where.provider },
      runSchedule: { namespace: where.namespace, name: where.schedule },
    });
  expect(new Set(acknowledged(sink).map((r) => r.event.id)).size).toBe(count);
  expect(acknowledged(sink).every((r) => r.event.type === "dev.slipway.pipelines.run-completion")).toBe(true);
  expect(sink.invalid).toEqual([]);
}
