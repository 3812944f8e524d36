/**
 * A reconcile computed again from a copy the cache has not refreshed (our own write not yet seen)
 * must not report its transition twice. The reconciles run here by hand, on a snapshot of the
 * objects read from the API server, as a lagging informer would serve them.
 */
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pipelineKinds } from "../../../src/apis/pipelines/index.ts";
import { KubeClient } from "../../../src/kube/client.ts";
import { ResourceTypes } from "../../../src/kube/discovery.ts";
import { KubeEventRecorder } from "../../../src/kube/events.ts";
import { RestClient } from "../../../src/kube/rest.ts";
import { eventType } from "../../../src/kube/runtime-types.ts";
import type {
  Cache,
  ControllerSpec,
  KubeObject,
  ReconcileContext,
  ResourceType,
} from "../../../src/kube/types.ts";
import { backends } from "../../../src/pipelines/backends.ts";
import { pipelineController } from "../../../src/pipelines/controllers/pipeline.ts";
import { runController } from "../../../src/pipelines/controllers/run.ts";
import { runConfigurationController } from "../../../src/pipelines/controllers/run-configuration.ts";
import { types } from "../../../src/pipelines/types.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { Api, installArgoCrds } from "../../support/fakes/pipelines-operator.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

const group = "pipelines.slipway.dev/v1beta1";
let api: Api;
let rest: RestClient;
let client: KubeClient;
let events: KubeEventRecorder;

beforeAll(async () => {
  api = new Api(adminConfig());
  await installCrds(pipelineKinds);
  await installArgoCrds(api);
  rest = new RestClient(adminConfig());
  client = new KubeClient(rest, new ResourceTypes(rest), { fieldManager: "slipway-pipelines" });
  events = new KubeEventRecorder(rest, {
    controller: "slipway.dev/test",
    instance: "lagging",
    log: pino({ level: "silent" }),
  });
});

afterAll(() => {
  rest?.close();
  api?.close();
});

/** A cache holding exactly these copies (nothing is indexed). */
function snapshot(objects: KubeObject[]): Cache {
  const find = (type: ResourceType, key: { namespace?: string; name: string }) =>
    objects.find(
      (o) => o.kind === type.kind && o.metadata?.namespace === key.namespace && o.metadata?.name === key.name,
    );
  return {
    get: <T extends KubeObject>(type: ResourceType, key: { namespace?: string; name: string }) =>
      find(type, key) as T | undefined,
    list: () => [],
    byIndex: () => [],
    holds: () => false,
  };
}

async function reconcile(controller: ControllerSpec, cache: Cache, object: KubeObject) {
  const context: ReconcileContext = {
    cache,
    client,
    events,
    log: pino({ level: "silent" }),
    signal: new AbortController().signal,
  };
  return controller.reconcile(
    { namespace: object.metadata?.namespace, name: object.metadata?.name ?? "" },
    context,
  );
}

const read = async (type: ResourceType, namespace: string, name: string): Promise<Any> => {
  const object = await api.get(type, namespace, name);
  if (!object) throw new Error(`${type.kind} ${namespace}/${name} does not exist`);
  return object;
};

/** The Events about `name` with `reason`, and how many times each was reported (events.k8s.io series). */
async function reported(namespace: string, name: string, reason: string): Promise<number[]> {
  await events.flush();
  const list = await api.list<Any>(eventType, namespace);
  return list
    .filter((e) => e.regarding?.name === name && e.reason === reason)
    .map((e) => e.series?.count ?? 1);
}

/** A Provider and a synchronized Pipeline `train` in a new namespace. */
async function synchronizedPipeline(): Promise<{ ns: string; provider: Any; pipeline: Any }> {
  const ns = await testNamespace("pllag");
  const providerObject = await api.create<Any>(types.provider, {
    apiVersion: group,
    kind: "Provider",
    metadata: { name: "argo", namespace: ns },
    spec: { type: "argo" },
  });
  // as the Provider controller leaves it: resources wait for a Provider that is not Ready
  const ready = {
    type: "Ready",
    status: "True",
    reason: "BackendAvailable",
    message: "Argo Workflows is installed",
  };
  const provider = {
    ...providerObject,
    status: { conditions: [{ ...ready, observedGeneration: providerObject.metadata.generation }] },
  };
  const created = await api.create(types.pipeline, {
    apiVersion: group,
    kind: "Pipeline",
    metadata: { name: "train", namespace: ns },
    spec: { provider: "argo", image: "registry.example/ml/pipeline:1", steps: [{ name: "train" }] },
  });
  await reconcile(pipelineController({ backends }), snapshot([provider, created]), created);
  const pipeline = await read(types.pipeline, ns, "train");
  expect(pipeline.status?.state).toBe("Succeeded");
  return { ns, provider, pipeline };
}

describe("a lagging cache does not replay a transition's Event", () => {
  it("RunSucceeded is reported once, with the status that records it", async () => {
    const { ns, provider, pipeline } = await synchronizedPipeline();
    const controller = runController({ backends, run: { completionPollSeconds: 1 } });
    const created = await api.create(types.run, {
      apiVersion: group,
      kind: "Run",
      metadata: { name: "once", namespace: ns },
      spec: { provider: "argo", pipeline: "train" },
    });
    await reconcile(controller, snapshot([provider, pipeline, created]), created);
    const submitted = await read(types.run, ns, "once");
    expect(submitted.status?.state).toBe("Succeeded");
    await api.mergePatch(types.workflow, ns, submitted.status.provider.id, {
      status: { phase: "Succeeded", startedAt: "2026-01-01T00:00:00Z", finishedAt: "2026-01-01T00:01:00Z" },
    });

    const lagging = snapshot([provider, pipeline, submitted]);
    await reconcile(controller, lagging, submitted);
    expect((await read(types.run, ns, "once")).status?.completionState).toBe("Succeeded");
    // the cache has not seen that write yet: the same copy is reconciled again
    await reconcile(controller, lagging, submitted);
    expect(await reported(ns, "once", "RunSucceeded")).toEqual([1]);
  });

  it("RunCreated is reported once, with the status that records the trigger", async () => {
    const { ns, provider, pipeline } = await synchronizedPipeline();
    const controller = runConfigurationController();
    const configuration = await api.create(types.runConfiguration, {
      apiVersion: group,
      kind: "RunConfiguration",
      metadata: { name: "nightly", namespace: ns },
      spec: { provider: "argo", run: { pipeline: "train" }, triggers: { onChange: ["runSpec"] } },
    });
    const lagging = snapshot([provider, pipeline, configuration]);
    await reconcile(controller, lagging, configuration);
    expect(
      (await read(types.runConfiguration, ns, "nightly")).status?.triggers?.runSpecVersion,
    ).toBeDefined();
    await reconcile(controller, lagging, configuration);
    expect(await reported(ns, "nightly", "RunCreated")).toEqual([1]);
    expect(await api.list(types.run, ns)).toHaveLength(1);
  });
});
