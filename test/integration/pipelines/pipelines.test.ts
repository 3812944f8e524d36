/**
 * The pipelines controllers on the real control plane with Argo's CRDs: Argo's workflow-controller
 * does not run here (see docs/pipelines.md), so where a run finishes the test writes the Workflow's
 * status as Argo's controller would.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pipelineKinds } from "../../../src/apis/pipelines/index.ts";
import { configMapType } from "../../../src/kube/core-types.ts";
import type { Manager } from "../../../src/kube/manager.ts";
import { providerFilePath, workflowSpec } from "../../../src/pipelines/argo/workflow.ts";
import { finalizer, types } from "../../../src/pipelines/types.ts";
import { adminConfig, eventually, isOwnNamespace, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { Api, installArgoCrds, startPipelinesOperator } from "../../support/fakes/pipelines-operator.ts";
import { condition } from "../../support/pipelines-testbed.ts";
import { type ConfigMapWatch, renderProviders, watchConfigMaps } from "./support.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

let api: Api;
let operator: Manager;
let configMaps: ConfigMapWatch | undefined;

beforeAll(async () => {
  api = new Api(adminConfig());
  await installCrds(pipelineKinds);
  await installArgoCrds(api);
  // its Providers name the ServiceAccount `runner`, which the operator must allow
  operator = await startPipelinesOperator(adminConfig(), {
    serves: isOwnNamespace,
    run: { defaultTtlSeconds: 3600, completionPollSeconds: 1 },
    serviceAccounts: ["*/runner"],
  });
});

afterAll(async () => {
  await operator?.stop();
  api?.close();
});

const group = "pipelines.slipway.dev/v1beta1";

/** Namespaces for one test, watched for ConfigMaps from the start; the test ends by checking none appeared. */
async function namespaces(count: number): Promise<string[]> {
  const names = await Promise.all(Array.from({ length: count }, () => testNamespace("pl")));
  configMaps = await watchConfigMaps(api, names);
  return names;
}

async function expectNoConfigMaps() {
  expect(configMaps).toBeDefined();
  expect(await configMaps?.stop()).toEqual([]);
}

async function helmProvider(namespace: string, spec: Record<string, unknown>, name = "argo") {
  const [provider] = await renderProviders(namespace, { [name]: spec });
  expect(provider?.kind).toBe("Provider");
  await api.create(types.provider, provider as Any);
  return eventually(
    `Provider ${name} Ready`,
    () => api.get(types.provider, namespace, name),
    (p) => condition(p, "Ready")?.status === "True",
  );
}

const pipelineSpec = (provider: string, trainArgs = ["--epochs=1"]) => ({
  provider,
  image: "registry.example/ml/pipeline:1",
  parameters: [{ name: "dataset", default: "s3://data/default" }],
  env: [{ name: "STAGE", value: "test" }],
  steps: [
    { name: "prepare", args: ["--dataset={{workflow.parameters.dataset}}"] },
    { name: "train", args: trainArgs, dependsOn: ["prepare"], retry: trainRetry },
  ],
});

const trainRetry = {
  limit: 2,
  policy: "OnError",
  backoff: { duration: "5s", factor: 3, maxDuration: "1h30m" },
};
/** Argo's retryStrategy for trainRetry, as the API server keeps it under Argo's own CRD schema (nothing pruned). */
const trainRetryStrategy = {
  limit: 2,
  retryPolicy: "OnError",
  backoff: { duration: "5s", factor: 3, maxDuration: "1h30m" },
};

async function createPipeline(namespace: string, name: string, provider: string, trainArgs?: string[]) {
  await api.create(types.pipeline, {
    apiVersion: group,
    kind: "Pipeline",
    metadata: { name, namespace },
    spec: pipelineSpec(provider, trainArgs),
  });
  return eventually(
    `Pipeline ${name} Succeeded`,
    () => api.get(types.pipeline, namespace, name),
    (p: Any) => p?.status?.state === "Succeeded" && condition(p, "Synchronized")?.status === "True",
  );
}

describe("pipelines on the argo backend", () => {
  it("Provider from Helm values → Ready; Pipeline → WorkflowTemplate; a step edit → new version; delete → template and finalizer gone", async () => {
    const [providerNs = "", ns = ""] = await namespaces(2);
    await helmProvider(providerNs, { type: "argo", serviceAccount: "runner", allowedNamespaces: [ns] });
    const provider = `${providerNs}/argo`;

    const synced: Any = await createPipeline(ns, "train", provider);
    expect(synced.status.provider).toMatchObject({ name: provider, id: `${ns}.train` });
    expect(synced.status.version).toMatch(/^[0-9a-f]{12}$/);
    expect(synced.metadata.finalizers).toContain(finalizer);
    expect(condition(synced, "Synchronized")).toMatchObject({ reason: "Succeeded", observedGeneration: 1 });

    const template: Any = await api.get(types.workflowTemplate, providerNs, `${ns}.train`);
    expect(template.metadata.labels).toMatchObject({
      "pipelines.slipway.dev/kind": "Pipeline",
      "pipelines.slipway.dev/namespace": ns,
      "pipelines.slipway.dev/name": "train",
      "pipelines.slipway.dev/version": synced.status.version,
    });
    const dag = template.spec.templates.find((t: Any) => t.name === "pipeline").dag.tasks;
    expect(dag).toEqual([
      { name: "prepare", template: "step-prepare" },
      { name: "train", template: "step-train", dependencies: ["prepare"] },
    ]);
    const train = template.spec.templates.find((t: Any) => t.name === "step-train");
    expect(train.container).toMatchObject({ image: "registry.example/ml/pipeline:1", args: ["--epochs=1"] });
    expect(train.retryStrategy).toEqual(trainRetryStrategy);
    expect(template.spec.templates.find((t: Any) => t.name === "step-prepare").retryStrategy).toBeUndefined();
    const providerArtifact = train.inputs.artifacts.find((a: Any) => a.path === providerFilePath);
    expect(JSON.parse(providerArtifact.raw.data)).toMatchObject({
      provider,
      type: "argo",
      serviceAccount: "runner",
    });
    expect(template.spec.serviceAccountName).toBe("runner");

    const events = await eventually(
      "Events for the Pipeline's transitions",
      () =>
        api.list(
          { group: "events.k8s.io", version: "v1", kind: "Event", plural: "events", namespaced: true },
          ns,
        ),
      (list: Any[]) => list.some((e) => e.regarding?.name === "train" && e.reason === "Succeeded"),
    );
    const created = events.find((e: Any) => e.regarding?.name === "train" && e.reason === "Succeeded");
    expect(created).toMatchObject({
      type: "Normal",
      note: expect.stringMatching(/^Creating → Succeeded: created in provider/),
    });

    await api.mergePatch(types.pipeline, ns, "train", {
      spec: { steps: pipelineSpec(provider, ["--epochs=5"]).steps },
    });
    const updated: Any = await eventually(
      "Pipeline re-synchronized at a new version",
      () => api.get(types.pipeline, ns, "train"),
      (p: Any) => p.status.observedGeneration === 2 && p.status.state === "Succeeded",
    );
    expect(updated.status.version).not.toBe(synced.status.version);
    const edited: Any = await api.get(types.workflowTemplate, providerNs, `${ns}.train`);
    expect(edited.metadata.labels["pipelines.slipway.dev/version"]).toBe(updated.status.version);
    expect(edited.spec.templates.find((t: Any) => t.name === "step-train").container.args).toEqual([
      "--epochs=5",
    ]);

    await api.delete(types.pipeline, ns, "train");
    await eventually(
      "Pipeline and its WorkflowTemplate deleted",
      async () => [
        await api.get(types.pipeline, ns, "train"),
        await api.get(types.workflowTemplate, providerNs, `${ns}.train`),
      ],
      ([pipeline, template]) => pipeline === undefined && template === undefined,
    );
    await expectNoConfigMaps();
  });

  /** A step's node in a Workflow's status, as Argo's workflow-controller records it. */
  function podNode(workflow: string, step: string, artifacts: Any[]) {
    const id = `${workflow}-${step}-1234567890`;
    return {
      [id]: {
        id,
        name: `${workflow}.${step}`,
        displayName: step,
        type: "Pod",
        templateName: `step-${step}`,
        phase: "Succeeded",
        outputs: { artifacts },
      },
    };
  }

  /** Writes a Workflow's status as Argo's workflow-controller does when the run ends. */
  async function finishWorkflow(
    namespace: string,
    name: string,
    phase: "Succeeded" | "Failed",
    nodes: Any = {},
  ) {
    await api.mergePatch(types.workflow, namespace, name, {
      status: { phase, startedAt: "2026-01-01T00:00:00Z", finishedAt: "2026-01-01T00:01:00Z", nodes },
    });
  }

  async function createRun(namespace: string, name: string, spec: Any) {
    await api.create(types.run, { apiVersion: group, kind: "Run", metadata: { name, namespace }, spec });
  }

  it("a Run → Workflow with the Provider at /slipway/provider.json; completion Succeeded and Failed mirrored; spec immutable", async () => {
    const [ns = ""] = await namespaces(1);
    await helmProvider(ns, { type: "argo", pipelineRootStorage: "s3://pipelines/root" });
    await createPipeline(ns, "train", "argo");

    await createRun(ns, "ok", {
      provider: "argo",
      pipeline: "train",
      parameters: [{ name: "dataset", value: "s3://data/today" }],
      artifacts: [{ name: "model", path: "train:model" }],
    });
    await createRun(ns, "bad", { provider: "argo", pipeline: "train" });
    const run: Any = await eventually(
      "Run ok Synchronized",
      () => api.get(types.run, ns, "ok"),
      (r: Any) => r?.status?.state === "Succeeded",
    );
    const workflow: Any = await api.get(types.workflow, ns, run.status.provider.id);
    expect(workflow.metadata.ownerReferences?.[0]).toMatchObject({
      kind: "Run",
      name: "ok",
      controller: true,
    });
    expect(workflow.spec.arguments.parameters).toEqual([{ name: "dataset", value: "s3://data/today" }]);
    for (const template of workflow.spec.templates.filter((t: Any) => t.container)) {
      const artifact = template.inputs.artifacts.find((a: Any) => a.name === "provider");
      expect(artifact.path).toBe(providerFilePath);
      expect(JSON.parse(artifact.raw.data)).toMatchObject({ provider: `${ns}/argo`, type: "argo" });
    }
    const train = workflow.spec.templates.find((t: Any) => t.name === "step-train");
    expect(train.outputs.artifacts).toEqual([{ name: "model", path: "/slipway/outputs/model" }]);
    expect(train.retryStrategy).toEqual(trainRetryStrategy);

    await expect(api.mergePatch(types.run, ns, "ok", { spec: { pipeline: "other" } })).rejects.toThrow(
      /a Run's spec is immutable/,
    );

    const okWorkflow = run.status.provider.id;
    await finishWorkflow(
      ns,
      okWorkflow,
      "Succeeded",
      podNode(okWorkflow, "train", [{ name: "model", s3: { key: "runs/ok/model.tgz" } }]),
    );
    const bad: Any = await eventually(
      "Run bad Synchronized",
      () => api.get(types.run, ns, "bad"),
      (r: Any) => r?.status?.state === "Succeeded",
    );
    await finishWorkflow(ns, bad.status.provider.id, "Failed");

    const succeeded: Any = await eventually(
      "Run ok completed",
      () => api.get(types.run, ns, "ok"),
      (r: Any) => r.status.completionState !== undefined,
    );
    expect(succeeded.status).toMatchObject({
      completionState: "Succeeded",
      artifacts: [{ name: "model", location: "s3://pipelines/root/runs/ok/model.tgz" }],
    });
    expect(Date.parse(succeeded.status.completedAt)).toBeGreaterThan(0);
    const failed: Any = await eventually(
      "Run bad completed",
      () => api.get(types.run, ns, "bad"),
      (r: Any) => r.status.completionState !== undefined,
    );
    expect(failed.status.completionState).toBe("Failed");
    await expectNoConfigMaps();
  });

  it("caching: the Workflow's memoize kept whole under Argo's CRD schema, status.caching recorded, a cache hit from memoizationStatus", async () => {
    const [ns = ""] = await namespaces(1);
    await helmProvider(ns, { type: "argo", defaultCaching: { maxAge: "168h" } });
    await api.create(types.pipeline, {
      apiVersion: group,
      kind: "Pipeline",
      metadata: { name: "cached", namespace: ns },
      spec: {
        ...pipelineSpec("argo"),
        caching: { enabled: true },
        steps: [
          {
            name: "prepare",
            args: ["--dataset={{workflow.parameters.dataset}}"],
            caching: { maxAge: "24h" },
          },
          { name: "train", dependsOn: ["prepare"], caching: { enabled: false } },
        ],
      },
    });
    await eventually(
      "Pipeline cached Succeeded",
      () => api.get(types.pipeline, ns, "cached"),
      (p: Any) => p?.status?.state === "Succeeded",
    );
    await createRun(ns, "cached", { provider: "argo", pipeline: "cached" });
    const run: Any = await eventually(
      "Run cached submitted, its caching recorded",
      () => api.get(types.run, ns, "cached"),
      (r: Any) => r?.status?.state === "Succeeded" && r.status.caching !== undefined,
    );
    expect(run.status.caching).toEqual([
      { step: "prepare", enabled: true, maxAge: "24h" },
      { step: "train", enabled: false, maxAge: "168h" },
    ]);
    const id = run.status.provider.id;
    const workflow: Any = await api.get(types.workflow, ns, id);
    const template = (name: string) => workflow.spec.templates.find((t: Any) => t.name === name);
    expect(template("step-prepare").memoize).toEqual({
      key: expect.stringMatching(/^slipway-[0-9a-f]{64}$/),
      maxAge: "24h",
      cache: { configMap: { name: "slipway-step-cache.argo" } },
    });
    expect(template("step-train").memoize).toBeUndefined();

    // Argo's controller found the entry an earlier Workflow saved for prepare (its cache Entry, labelled
    // as Argo labels its caches), and ran train
    await api.create(configMapType, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "slipway-step-cache.argo",
        namespace: ns,
        labels: { "workflows.argoproj.io/configmap-type": "Cache" },
      },
      data: {
        [template("step-prepare").memoize.key]: JSON.stringify({
          nodeID: `${ns}.earlier-1834710231`,
          outputs: null,
          creationTimestamp: "2026-01-01T00:00:00Z",
          lastHitTimestamp: "2026-01-02T00:00:00Z",
        }),
      },
    } as Any);
    const hit = podNode(id, "prepare", []);
    for (const node of Object.values(hit) as Any[])
      node.memoizationStatus = {
        hit: true,
        key: template("step-prepare").memoize.key,
        cacheName: "slipway-step-cache.argo",
      };
    await finishWorkflow(ns, id, "Succeeded", { ...hit, ...podNode(id, "train", []) });
    const done: Any = await eventually(
      "Run cached completed",
      () => api.get(types.run, ns, "cached"),
      (r: Any) => r?.status?.completionState === "Succeeded",
    );
    expect(done.status.steps.map((s: Any) => [s.name, s.cacheHit, s.reusedRun])).toEqual([
      ["prepare", true, `${ns}.earlier`],
      ["train", undefined, undefined],
    ]);
    // kept as recorded with the completion
    expect(done.status.caching).toEqual(run.status.caching);
    // the only ConfigMap is the test's (Argo's): Slipway writes none
    expect(await configMaps?.stop()).toEqual([`${ns}/slipway-step-cache.argo`]);
  });

  it("a completed Run is deleted after its TTL, and its Workflow with it", async () => {
    const [ns = ""] = await namespaces(1);
    await helmProvider(ns, { type: "argo" });
    await createPipeline(ns, "train", "argo");
    await createRun(ns, "short", { provider: "argo", pipeline: "train", ttlSecondsAfterCompletion: 1 });
    const run: Any = await eventually(
      "Run created",
      () => api.get(types.run, ns, "short"),
      (r: Any) => r?.status?.state === "Succeeded",
    );
    await finishWorkflow(ns, run.status.provider.id, "Succeeded");
    await eventually(
      "Run and Workflow gone after the TTL",
      async () => [
        await api.get(types.run, ns, "short"),
        await api.get(types.workflow, ns, run.status.provider.id),
      ],
      ([r, w]) => r === undefined && w === undefined,
      30_000,
    );
    await expectNoConfigMaps();
  });

  it("RunConfiguration: two schedules → two RunSchedules → two CronWorkflows; removing one removes it; onChange pipeline → a new Run", async () => {
    const [ns = ""] = await namespaces(1);
    await helmProvider(ns, { type: "argo" });
    await createPipeline(ns, "train", "argo");
    const schedules = [
      { cronExpression: "0 * * * *" },
      { cronExpression: "@daily", concurrencyPolicy: "Allow", catchUp: true, startingDeadlineSeconds: 300 },
    ];
    await api.create(types.runConfiguration, {
      apiVersion: group,
      kind: "RunConfiguration",
      metadata: { name: "nightly", namespace: ns },
      spec: { provider: "argo", run: { pipeline: "train" }, triggers: { schedules, onChange: ["pipeline"] } },
    });
    const owned = async () =>
      (await api.list<Any>(types.runSchedule, ns)).filter(
        (s) => s.metadata.ownerReferences?.[0]?.name === "nightly",
      );
    const two = await eventually(
      "two RunSchedules Succeeded",
      owned,
      (list) => list.length === 2 && list.every((s) => s.status?.state === "Succeeded"),
    );
    const crons = await eventually(
      "two CronWorkflows",
      () => api.list<Any>(types.cronWorkflow, ns),
      (l) => l.length === 2,
    );
    // accepted by the API server with Argo's own CronWorkflow schema: Forbid by default, no catch-up
    // without a deadline (the Argo controller enforces both)
    const policies = crons
      .map((c) => [c.spec.schedules[0], c.spec.concurrencyPolicy, c.spec.startingDeadlineSeconds])
      .sort();
    expect(policies).toEqual([
      ["0 * * * *", "Forbid", undefined],
      ["@daily", "Allow", 300],
    ]);
    expect(two.map((s) => s.spec.schedule.cronExpression).sort()).toEqual(["0 * * * *", "@daily"]);

    const firstRuns = await eventually(
      "a Run for the first pipeline version",
      () => api.list<Any>(types.run, ns),
      (l) => l.length === 1,
    );

    await api.mergePatch(types.runConfiguration, ns, "nightly", {
      spec: { triggers: { schedules: [schedules[1]] } },
    });
    // schedules are RunSchedules by their place: the first one now says @daily, the second one goes
    const one = await eventually("one RunSchedule left", owned, (list) => list.length === 1);
    expect(one[0].metadata.name).toBe("nightly-0");
    expect(one[0].spec.schedule.cronExpression).toBe("@daily");
    await eventually(
      "one CronWorkflow left, saying @daily",
      () => api.list<Any>(types.cronWorkflow, ns),
      (l) => l.length === 1 && l[0].spec.schedules[0] === "@daily" && l[0].spec.concurrencyPolicy === "Allow",
    );

    await api.mergePatch(types.pipeline, ns, "train", {
      spec: { steps: pipelineSpec("argo", ["--epochs=9"]).steps },
    });
    const runs = await eventually(
      "a second Run for the new version",
      () => api.list<Any>(types.run, ns),
      (l) => l.length === 2,
    );
    expect(runs.map((r) => r.metadata.name)).toContain(firstRuns[0].metadata.name);
    const crons2 = await eventually(
      "the CronWorkflow carries the new pipeline version",
      () => api.list<Any>(types.cronWorkflow, ns),
      (l) =>
        l.length === 1 &&
        l[0].spec.workflowSpec.templates.some((t: Any) => t.container?.args?.[0] === "--epochs=9"),
    );
    expect(crons2).toHaveLength(1);
    await expectNoConfigMaps();
  });

  it("a chained RunConfiguration fires after the first one's run succeeds and receives its artifact through valueFrom", async () => {
    const [ns = ""] = await namespaces(1);
    await helmProvider(ns, { type: "argo" });
    await createPipeline(ns, "train", "argo");
    await createPipeline(ns, "serve", "argo");
    const rc = (name: string, spec: Any) =>
      api.create(types.runConfiguration, {
        apiVersion: group,
        kind: "RunConfiguration",
        metadata: { name, namespace: ns },
        spec,
      });
    await rc("deploy", {
      provider: "argo",
      run: {
        pipeline: "serve",
        parameters: [
          {
            name: "model",
            valueFrom: { runConfigurationRef: { name: "training", outputArtifact: "model" } },
          },
        ],
      },
      triggers: { runConfigurations: ["training"] },
    });
    await rc("training", {
      provider: "argo",
      run: { pipeline: "train", artifacts: [{ name: "model", path: "train:model" }] },
      triggers: { onChange: ["runSpec"] },
    });
    const [trainingRun] = await eventually(
      "the training Run created and synchronized",
      () => api.list<Any>(types.run, ns),
      (l) => l.length === 1 && l[0].status?.state === "Succeeded",
    );
    expect(trainingRun.metadata.ownerReferences[0].name).toBe("training");
    const trainingWorkflow = trainingRun.status.provider.id;
    await finishWorkflow(
      ns,
      trainingWorkflow,
      "Succeeded",
      podNode(trainingWorkflow, "train", [{ name: "model", s3: { bucket: "models", key: "m1.tgz" } }]),
    );
    await eventually(
      "training records latestRuns.succeeded",
      () => api.get(types.runConfiguration, ns, "training"),
      (c: Any) => c.status?.latestRuns?.succeeded?.id === trainingRun.metadata.name,
    );
    const deployRun: Any = await eventually(
      "the deploy Run created and synchronized",
      async () =>
        (await api.list<Any>(types.run, ns)).find((r) => r.metadata.ownerReferences[0].name === "deploy"),
      (r: Any) => r?.status?.state === "Succeeded",
    );
    const workflow: Any = await api.get(types.workflow, ns, deployRun.status.provider.id);
    expect(workflow.spec.arguments.parameters).toContainEqual({ name: "model", value: "s3://models/m1.tgz" });
    await expectNoConfigMaps();
  });

  it("a resource naming a Provider it may not use is refused with a clear condition", async () => {
    const [providerNs = "", ns = ""] = await namespaces(2);
    await helmProvider(providerNs, { type: "argo", allowedNamespaces: ["somewhere-else"] });
    await api.create(types.pipeline, {
      apiVersion: group,
      kind: "Pipeline",
      metadata: { name: "train", namespace: ns },
      spec: pipelineSpec(`${providerNs}/argo`),
    });
    const refused: Any = await eventually(
      "Pipeline refused",
      () => api.get(types.pipeline, ns, "train"),
      (p: Any) => condition(p, "ProviderAccepted")?.status === "False",
    );
    expect(condition(refused, "ProviderAccepted")).toMatchObject({
      reason: "ProviderNotAllowed",
      message: `spec.provider: Provider ${providerNs}/argo does not allow namespace ${ns} (its spec.allowedNamespaces: somewhere-else)`,
    });
    expect(condition(refused, "Synchronized")).toMatchObject({ status: "False", reason: "Failed" });
    expect(await api.list(types.workflowTemplate, providerNs)).toEqual([]);

    // allowing the namespace re-syncs the Pipeline (a Provider change reaches the resources that use it)
    await api.mergePatch(types.provider, providerNs, "argo", {
      spec: { allowedNamespaces: ["somewhere-else", ns] },
    });
    await eventually(
      "Pipeline synchronized once allowed",
      () => api.get(types.pipeline, ns, "train"),
      (p: Any) => p.status.state === "Succeeded" && condition(p, "ProviderAccepted")?.status === "True",
    );
    await api.delete(types.pipeline, ns, "train");
    await eventually(
      "template removed",
      () => api.list(types.workflowTemplate, providerNs),
      (l) => l.length === 0,
    );
    await expectNoConfigMaps();
  });

  it("changing a resource's Provider moves it: deleted from the old backend, created in the new one", async () => {
    const [first = "", second = "", ns = ""] = await namespaces(3);
    await helmProvider(first, { type: "argo", allowedNamespaces: [ns] });
    await helmProvider(second, { type: "argo", allowedNamespaces: [ns] });
    await createPipeline(ns, "train", `${first}/argo`);
    expect(await api.get(types.workflowTemplate, first, `${ns}.train`)).toBeDefined();

    await api.mergePatch(types.pipeline, ns, "train", { spec: { provider: `${second}/argo` } });
    const moved: Any = await eventually(
      "Pipeline synchronized in the second provider",
      () => api.get(types.pipeline, ns, "train"),
      (p: Any) => p.status.observedGeneration === 2 && p.status.state === "Succeeded",
    );
    expect(moved.status.provider).toMatchObject({ name: `${second}/argo`, id: `${ns}.train` });
    expect(await api.get(types.workflowTemplate, second, `${ns}.train`)).toBeDefined();
    expect(await api.get(types.workflowTemplate, first, `${ns}.train`)).toBeUndefined();
    await expectNoConfigMaps();
  });

  it("outputs passed to inputs → a WorkflowTemplate Argo's CRD keeps whole; a cycle through inputs is Failed naming the field, nothing created", async () => {
    const [ns = ""] = await namespaces(1);
    await helmProvider(ns, { type: "argo" });
    const ioSteps = [
      {
        name: "train",
        args: ["{{inputs.parameters.rows}}", "{{inputs.artifacts.data.path}}"],
        inputs: {
          parameters: [{ name: "rows", from: { step: "prepare", output: "rows" } }],
          artifacts: [{ name: "data", from: { step: "prepare", output: "dataset" } }],
        },
      },
      {
        name: "prepare",
        args: ["{{outputs.parameters.rows.path}}", "{{outputs.artifacts.dataset.path}}"],
        outputs: { parameters: [{ name: "rows" }], artifacts: [{ name: "dataset" }] },
      },
    ];
    await api.create(types.pipeline, {
      apiVersion: group,
      kind: "Pipeline",
      metadata: { name: "io", namespace: ns },
      spec: { provider: "argo", image: "registry.example/ml/pipeline:1", steps: ioSteps },
    });
    await eventually(
      "Pipeline io Succeeded",
      () => api.get(types.pipeline, ns, "io"),
      (p: Any) => p?.status?.state === "Succeeded",
    );
    const template: Any = await api.get(types.workflowTemplate, ns, `${ns}.io`);
    const rendered = workflowSpec(
      {
        owner: { object: {}, kind: "Pipeline", namespace: ns, name: "io" },
        name: "io",
        version: "",
        spec: { provider: "argo", image: "registry.example/ml/pipeline:1", steps: ioSteps } as Any,
      },
      {
        key: { namespace: ns, name: "argo" },
        spec: ((await api.get(types.provider, ns, "argo")) as Any).spec,
        version: "",
      },
    );
    // nothing of the inputs, outputs, arguments and volumes pruned by Argo's schema
    const pick = (spec: Any) =>
      spec.templates.map((t: Any) => ({
        name: t.name,
        tasks: t.dag?.tasks,
        inputs: t.inputs?.parameters,
        artifacts: t.inputs?.artifacts?.filter((a: Any) => a.name !== "provider"),
        outputs: t.outputs,
        volumes: t.volumes,
        mounts: t.container?.volumeMounts,
      }));
    expect(pick(template.spec)).toEqual(pick(rendered));
    expect(template.spec.templates[0].dag.tasks[0]).toMatchObject({
      name: "train",
      dependencies: ["prepare"],
      arguments: { artifacts: [{ name: "data", from: "{{tasks.prepare.outputs.artifacts.dataset}}" }] },
    });

    await api.create(types.pipeline, {
      apiVersion: group,
      kind: "Pipeline",
      metadata: { name: "cyclic", namespace: ns },
      spec: {
        provider: "argo",
        image: "registry.example/ml/pipeline:1",
        steps: [
          { ...ioSteps[0], outputs: { parameters: [{ name: "score" }] } },
          { ...ioSteps[1], dependsOn: ["train"] },
        ],
      },
    });
    const failed: Any = await eventually(
      "Pipeline cyclic Failed",
      () => api.get(types.pipeline, ns, "cyclic"),
      (p: Any) => p?.status?.state === "Failed",
    );
    expect(condition(failed, "Synchronized").message).toMatch(
      /^create failed \(attempt 1\): spec.steps\[0\]: a cycle: train → prepare → train \(dependsOn and inputs\); retrying in 5s$/,
    );
    const templates: Any[] = await api.list(types.workflowTemplate, ns);
    expect(templates.map((t) => t.metadata.name)).toEqual([`${ns}.io`]);
  });

  it("a backend failure → Failed, retried with backoff shown in the condition; fixing the spec recovers", async () => {
    const [ns = ""] = await namespaces(1);
    await helmProvider(ns, { type: "argo" });
    await createPipeline(ns, "train", "argo");
    // 6-field cron passes the schema and croner, but Argo's CronWorkflow takes 5 fields
    await api.create(types.runSchedule, {
      apiVersion: group,
      kind: "RunSchedule",
      metadata: { name: "secondly", namespace: ns },
      spec: { provider: "argo", pipeline: "train", schedule: { cronExpression: "*/10 * * * * *" } },
    });
    const failed: Any = await eventually(
      "RunSchedule Failed",
      () => api.get(types.runSchedule, ns, "secondly"),
      (s: Any) => s?.status?.state === "Failed",
    );
    expect(condition(failed, "Synchronized")).toMatchObject({
      status: "False",
      reason: "Failed",
      message: expect.stringMatching(
        /^create failed \(attempt 1\): spec.schedule.cronExpression: the argo backend takes 5 cron fields .*; retrying in 5s$/,
      ),
    });
    expect(failed.status.retryAt).toBeDefined();
    await eventually(
      "retried a second time",
      () => api.get(types.runSchedule, ns, "secondly"),
      (s: Any) =>
        s.status.failedAttempts === 2 &&
        /attempt 2.*retrying in 10s/.test(condition(s, "Synchronized").message),
      30_000,
    );
    await api.mergePatch(types.runSchedule, ns, "secondly", {
      spec: { schedule: { cronExpression: "*/10 * * * *" } },
    });
    await eventually(
      "RunSchedule Succeeded after the fix",
      () => api.get(types.runSchedule, ns, "secondly"),
      (s: Any) => s.status.state === "Succeeded" && !s.status.failedAttempts,
    );
    const [cron]: Any[] = await api.list(types.cronWorkflow, ns);
    expect(cron.spec).toMatchObject({ schedules: ["*/10 * * * *"], concurrencyPolicy: "Forbid" });

    // a policy a CronWorkflow cannot honour: refused naming the field, the live CronWorkflow as it was
    await api.mergePatch(types.runSchedule, ns, "secondly", {
      spec: { schedule: { cronExpression: "*/20 * * * *" }, concurrencyPolicy: "Allow", maxConcurrency: 3 },
    });
    const refused: Any = await eventually(
      "RunSchedule refused",
      () => api.get(types.runSchedule, ns, "secondly"),
      (s: Any) => s.status.state === "Failed" && s.status.observedGeneration === 3,
    );
    expect(condition(refused, "Synchronized").message).toMatch(
      /^update failed \(attempt 1\): spec.maxConcurrency: the argo backend cannot bound the runs of concurrencyPolicy Allow .*; retrying in 5s$/,
    );
    const kept: Any[] = await api.list(types.cronWorkflow, ns);
    expect(kept.map((c) => [c.metadata.name, c.spec.schedules, c.spec.concurrencyPolicy])).toEqual([
      [cron.metadata.name, ["*/10 * * * *"], "Forbid"],
    ]);
    await expectNoConfigMaps();
  });
});
