import pino from "pino";
import { beforeAll, describe, expect, it } from "vitest";
import { pipelineKinds } from "../../../src/apis/pipelines/index.ts";
import { KubeEventRecorder } from "../../../src/kube/events.ts";
import type { KubeObject } from "../../../src/kube/types.ts";
import { types } from "../../../src/pipelines/types.ts";
import { maxPageSize } from "../../../src/server/paging.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { Api } from "../../support/fakes/pipelines-operator.ts";
import { grantRole } from "../../support/service-account.ts";
import { serviceAccountToken, startServer } from "./server.ts";

const apiVersion = "pipelines.slipway.dev/v1beta1";
const pipelineSpec = {
  provider: "argo",
  image: "trainer:1",
  parameters: [{ name: "epochs", default: "3" }, { name: "dataset" }],
  steps: [{ name: "prepare" }, { name: "train", dependsOn: ["prepare"] }],
};

/** A namespace with a Provider, a Pipeline using it, and a caller allowed `verbs` on pipeline resources (and events when asked). */
async function setup(options: { events: boolean }) {
  const namespace = await testNamespace("pl-ui");
  const api = new Api(adminConfig());
  const object = (kind: string, name: string, spec: unknown) => ({
    apiVersion,
    kind,
    metadata: { name, namespace },
    spec,
  });
  await api.create(types.provider, object("Provider", "argo", { type: "argo" }));
  await api.create(types.provider, object("Provider", "spare", { type: "kfp" }));
  const pipeline = await api.create<KubeObject>(types.pipeline, object("Pipeline", "train", pipelineSpec));
  const url = await startServer(namespace);
  const token = await serviceAccountToken(namespace, "scientist");
  await grantRole(namespace, "scientist", "scientist-pipelines", [
    {
      apiGroups: ["pipelines.slipway.dev"],
      resources: ["pipelines", "runs", "providers", "runconfigurations", "runschedules", "experiments"],
      verbs: ["get", "list", "watch", "create"],
    },
    ...(options.events ? [{ apiGroups: [""], resources: ["events"], verbs: ["list"] }] : []),
  ]);
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}/api/v1/namespaces/${namespace}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body ? { "content-type": "application/json" } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return { namespace, api, pipeline, call, url };
}

describe("REST routes of the pipeline pages", () => {
  beforeAll(() => installCrds(pipelineKinds));

  it("history: the Pipeline's transitions from its Events (newest first, with versions); only the status without events rights", async () => {
    const { api, pipeline, call } = await setup({ events: true });
    let at = Date.now();
    const recorder = new KubeEventRecorder(api.rest, {
      controller: "slipway.dev/pipelines",
      instance: "test",
      log: pino({ level: "silent" }),
      now: () => new Date(at),
    });
    const stored = { ...pipeline, apiVersion, kind: "Pipeline" };
    recorder.event(
      stored,
      "Normal",
      "Succeeded",
      "Creating → Succeeded: created provider argo as train-a (version 1a2b)",
    );
    at += 1100; // the second transition a second later
    recorder.event(
      stored,
      "Normal",
      "Succeeded",
      "Updating → Succeeded: updated provider argo as train-a (version 3c4d)",
    );
    await recorder.flush();
    const history = await eventually(
      "both Events are listed",
      () => call("GET", "/pipelines/train/history"),
      (answer) => (answer.body.entries as unknown[] | undefined)?.length === 2,
    );
    expect(history.body).toMatchObject({
      eventsVisible: true,
      entries: [
        { state: "Succeeded", version: "3c4d", warning: false, message: expect.stringMatching(/^Updating/) },
        { state: "Succeeded", version: "1a2b", message: expect.stringMatching(/^Creating/) },
      ],
    });
    expect(await call("GET", "/pipelines/nope/history")).toMatchObject({ status: 404 });
    api.close();
  });

  it("history without the right to list Events: the current status only, said so", async () => {
    const { call } = await setup({ events: false });
    expect(await call("GET", "/pipelines/train/history")).toEqual({
      status: 200,
      body: { current: {}, entries: [], eventsVisible: false },
    });
  });

  it("starts a Run from a Pipeline on its Provider; unknown pipeline or parameter and a missing value are 400s naming the field", async () => {
    const { namespace, api, call } = await setup({ events: false });
    const created = await call("POST", "/runs", {
      pipeline: "train",
      parameters: [{ name: "dataset", value: "s3://data/x" }],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: expect.stringMatching(/^train-/),
      namespace,
      spec: { provider: "argo", pipeline: "train", parameters: [{ name: "dataset", value: "s3://data/x" }] },
    });
    const stored = await api.get<KubeObject & { spec: unknown }>(
      types.run,
      namespace,
      created.body.name as string,
    );
    expect(stored?.spec).toEqual(created.body.spec);

    expect(await call("POST", "/runs", { pipeline: "nope" })).toMatchObject({
      status: 400,
      body: { field: "body.pipeline", message: `body.pipeline: Pipeline ${namespace}/nope does not exist` },
    });
    expect(
      await call("POST", "/runs", {
        pipeline: "train",
        parameters: [
          { name: "dataset", value: "d" },
          { name: "epoch", value: "5" },
        ],
      }),
    ).toMatchObject({
      status: 400,
      body: { field: "body.parameters.1.name", message: /has no parameter epoch/ },
    });
    expect(await call("POST", "/runs", { pipeline: "train" })).toMatchObject({
      status: 400,
      body: { field: "body.parameters", message: /dataset has no default/ },
    });
    expect(await call("POST", "/runs", { pipeline: "Train!" })).toMatchObject({
      status: 400,
      body: { field: "body.pipeline" },
    });
    api.close();
  });

  it("lists Providers with the resources of the namespace using each", async () => {
    const { namespace, api, call } = await setup({ events: false });
    await api.create(types.run, {
      apiVersion,
      kind: "Run",
      metadata: { name: "r1", namespace },
      spec: { provider: `${namespace}/argo`, pipeline: "train" },
    });
    const providers = await call("GET", "/providers");
    expect(providers.status).toBe(200);
    expect(providers.body).toEqual({
      resourceVersion: expect.any(String),
      hiddenKinds: [],
      items: [
        expect.objectContaining({
          name: "argo",
          spec: { type: "argo" },
          usedBy: [
            { kind: "Pipeline", name: "train" },
            { kind: "Run", name: "r1" },
          ],
        }),
        expect.objectContaining({ name: "spare", usedBy: [] }),
      ],
    });
    api.close();
  });

  it("counts a page's Providers' users over more than one upstream page of a kind; the next page has its own", async () => {
    const { namespace, api, call } = await setup({ events: false });
    const runs = maxPageSize + 1; // two pages of Runs upstream
    const names = Array.from({ length: runs }, (_, i) => `run-${String(i).padStart(4, "0")}`);
    for (let start = 0; start < runs; start += 32)
      await Promise.all(
        names.slice(start, start + 32).map((name) =>
          api.create(types.run, {
            apiVersion,
            kind: "Run",
            metadata: { name, namespace },
            spec: { provider: "argo", pipeline: "train" },
          }),
        ),
      );
    const first = await call("GET", "/providers?limit=1");
    expect(first.status).toBe(200);
    const [argo] = first.body.items as { name: string; usedBy: { kind: string; name: string }[] }[];
    expect(argo?.name).toBe("argo");
    expect(argo?.usedBy).toEqual([
      { kind: "Pipeline", name: "train" },
      ...names.map((name) => ({ kind: "Run", name })),
    ]);
    expect(first.body.hiddenKinds).toEqual([]);
    const second = await call(
      "GET",
      `/providers?limit=1&continue=${encodeURIComponent(String(first.body.continue))}`,
    );
    expect(second.body).toMatchObject({ items: [{ name: "spare", usedBy: [] }], hiddenKinds: [] });
    expect(second.body.continue).toBeUndefined();
    api.close();
  });
});
