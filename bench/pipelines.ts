import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { ClientRequest, IncomingMessage } from "node:http";
import type { KubeConfig } from "@kubernetes/client-node";
import { crdManifest } from "../src/apis/crd.ts";
import { pipelineKinds } from "../src/apis/pipelines/index.ts";
import { releaseRunFinalizerPolicy } from "../src/bundle/release.ts";
import { resourcePath } from "../src/kube/keys.ts";
import { argoName } from "../src/pipelines/argo/names.ts";
import { workflow } from "../src/pipelines/argo/workflow.ts";
import type { ProviderConfig, RunDefinition } from "../src/pipelines/backend.ts";
import { backends } from "../src/pipelines/backends.ts";
import { runController } from "../src/pipelines/controllers/run.ts";
import { runBody } from "../src/pipelines/kfp/requests.ts";
import { outboundPolicy } from "../src/pipelines/outbound-policy.ts";
import { runFinalizerPolicyType } from "../src/pipelines/run-finalizer-policy.ts";
import { providerConfig } from "../src/pipelines/sync/reconciler.ts";
import { statusOf } from "../src/pipelines/sync/status.ts";
import { finalizer, types } from "../src/pipelines/types.ts";
import { versionOf } from "../src/pipelines/version.ts";
import { pipelineJob, pipelineSpecOf, type Struct, vertexId } from "../src/pipelines/vertex/requests.ts";
import { locationName, vertexSettings } from "../src/pipelines/vertex/settings.ts";
import { type KfpServer, kfpPython, startKfpServer } from "../test/support/fakes/kfp-server.ts";
import { Api, installArgoCrds, startPipelinesOperator } from "../test/support/fakes/pipelines-operator.ts";
import { startVertexServer, type VertexServer } from "../test/support/fakes/vertex-server.ts";
import type { BenchFigures } from "./run.ts";
import { benchControlPlane, pool, sleep, until } from "./support.ts";

/** 1,000 Runs per backend; SLIPWAY_BENCH_RUNS and SLIPWAY_BENCH_BACKENDS (argo,kfp,vertex) narrow a diagnosis run. */
const runs = Number(process.env.SLIPWAY_BENCH_RUNS ?? 1_000);
const selected = (process.env.SLIPWAY_BENCH_BACKENDS ?? "argo,kfp,vertex").split(",");
const namespaceType = {
  group: "",
  version: "v1",
  kind: "Namespace",
  plural: "namespaces",
  namespaced: false,
};
const concurrency = runController({ backends }).concurrency ?? 4;
/** The bench's KFP and Vertex servers listen on loopback: the operator's outbound policy lets it through. */
const loopbackAllowed = outboundPolicy({ allow: ["127.0.0.1"] });
const group = "pipelines.slipway.dev/v1beta1";
/**
 * The operator as the bench starts it: its outbound policy lets it reach the loopback servers, and
 * no client-side rate limit, as the floor's plain client has none (the runtime bench and its
 * controller-runtime peer likewise turn theirs off: docs/scale.md). At the default 20 requests a
 * second the bucket, not the operator, sets the pace: 2 writes per argo Run, 1 per kfp or vertex Run.
 */
const operatorOptions = { outbound: { allow: ["127.0.0.1"] }, clientRateLimit: false } as const;

const token = "bench-kfp-token";

/** What differs between the backends measured: the Provider, and the floor's one backend call per Run. */
interface BenchBackend {
  type: "argo" | "kfp" | "vertex";
  providerSpec: Record<string, unknown>;
  /** The plain client's backend call for one run; returns the id the operator would record. */
  submit(run: RunDefinition, provider: ProviderConfig): Promise<string>;
  /** How many backend runs exist (both the operator's and the floor's). */
  count(namespace: string): Promise<number>;
  /** The backend's calls so far by `METHOD path` (none for argo: its calls are Kubernetes requests). */
  calls(): Promise<Record<string, number>>;
}

function argoBench(api: Api): BenchBackend {
  return {
    type: "argo",
    providerSpec: { type: "argo" },
    submit: async (run, provider) => {
      const id = argoName(run.owner);
      await api.create(types.workflow, workflow(id, run, provider) as never);
      return id;
    },
    count: async (namespace) => (await api.list(types.workflow, namespace)).length,
    calls: async () => ({}),
  };
}

function kfpBench(server: KfpServer): BenchBackend {
  return {
    type: "kfp",
    providerSpec: {
      type: "kfp",
      parameters: { endpoint: server.endpoint, auth: { bearerTokenSecret: { name: "kfp" } } },
    },
    submit: async (run, provider) => {
      const response = await fetch(`${server.endpoint}/apis/v2beta1/runs`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify(runBody(run, provider)),
      });
      if (!response.ok) throw new Error(`KFP: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { run_id: string }).run_id;
    },
    count: async (namespace) =>
      Object.values((await server.state()).runs as Record<string, { display_name: string }>).filter((r) =>
        r.display_name.startsWith(`${namespace}.`),
      ).length,
    calls: async () => {
      const counts: Record<string, number> = {};
      for (const { method, path } of await server.requests()) {
        const call = `${method} ${path.replace(/\/[0-9a-f-]{36}(?=\/|$)/g, "/{id}")}`;
        counts[call] = (counts[call] ?? 0) + 1;
      }
      return counts;
    },
  };
}

/** The floor's client: the official one, as the backend makes it for a plaintext loopback endpoint. */
async function vertexFloorClient(server: VertexServer) {
  const [{ v1 }, { grpc }, { PassThroughClient }] = await Promise.all([
    import("@google-cloud/aiplatform"),
    import("google-gax"),
    import("google-auth-library"),
  ]);
  return new v1.PipelineServiceClient({
    apiEndpoint: server.endpoint.host,
    port: server.endpoint.port,
    sslCreds: grpc.credentials.createInsecure(),
    authClient: new PassThroughClient() as never,
  });
}

async function vertexBench(server: VertexServer): Promise<BenchBackend> {
  const floorClient = await vertexFloorClient(server);
  let floorSpec: Struct | undefined;
  const providerSpec = {
    type: "vertex",
    parameters: {
      project: server.project,
      location: server.location,
      apiEndpoint: `${server.endpoint.host}:${server.endpoint.port}`,
      plaintext: true,
    },
  };
  return {
    type: "vertex",
    providerSpec,
    submit: async (run, provider) => {
      const settings = vertexSettings(provider, loopbackAllowed);
      const parent = locationName(settings);
      const pipelineJobId = vertexId(run.owner);
      // a plain client compiles the one Pipeline once, as the backend keeps it per version
      floorSpec ??= pipelineSpecOf(run, provider);
      await floorClient.createPipelineJob({
        parent,
        pipelineJobId,
        pipelineJob: pipelineJob(run, provider, settings, floorSpec),
      });
      return `${parent}/pipelineJobs/${pipelineJobId}`;
    },
    count: async (namespace) =>
      [...server.jobs.values()].filter((job) => job.displayName.startsWith(`${namespace}.`)).length,
    calls: async () => {
      const counts: Record<string, number> = {};
      for (const { method } of server.requests) counts[method] = (counts[method] ?? 0) + 1;
      return counts;
    },
  };
}

/**
 * prepare → train → evaluate, wired by inputs and outputs (docs/pipelines.md "Inputs and outputs
 * between steps"): the Pipeline's parameter feeds prepare; prepare's output parameter and artifact
 * go to train; train's output parameter and artifact (and prepare's parameter) go to evaluate. No
 * dependsOn: the inputs imply the order, so every backend renders the wiring for each Run
 * (argo: the Workflow's templates and task arguments; kfp and vertex: the IR's task inputs).
 */
const pipelineSpec = (provider: string) => ({
  provider,
  image: "registry.example/ml/pipeline:1",
  parameters: [{ name: "dataset", default: "s3://data/default" }],
  steps: [
    {
      name: "prepare",
      command: ["python", "-m", "prepare"],
      args: [
        "--source={{inputs.parameters.source}}",
        "--rows-file={{outputs.parameters.rows.path}}",
        "--out={{outputs.artifacts.data.path}}",
      ],
      inputs: { parameters: [{ name: "source", from: { parameter: "dataset" } }] },
      outputs: { parameters: [{ name: "rows" }], artifacts: [{ name: "data" }] },
    },
    {
      name: "train",
      command: ["python", "-m", "train"],
      args: [
        "--rows={{inputs.parameters.rows}}",
        "--data={{inputs.artifacts.data.path}}",
        "--loss-file={{outputs.parameters.loss.path}}",
        "--model={{outputs.artifacts.model.path}}",
      ],
      inputs: {
        parameters: [{ name: "rows", from: { step: "prepare", output: "rows" } }],
        artifacts: [{ name: "data", from: { step: "prepare", output: "data" } }],
      },
      outputs: { parameters: [{ name: "loss" }], artifacts: [{ name: "model" }] },
    },
    {
      name: "evaluate",
      command: ["python", "-m", "evaluate"],
      args: [
        "--loss={{inputs.parameters.loss}}",
        "--model={{inputs.artifacts.model.path}}",
        "--report={{outputs.artifacts.report.path}}",
      ],
      inputs: {
        parameters: [{ name: "loss", from: { step: "train", output: "loss" } }],
        artifacts: [{ name: "model", from: { step: "train", output: "model" } }],
      },
      outputs: { artifacts: [{ name: "report" }] },
    },
  ],
});

export const pipelineSpecForProbe = pipelineSpec;
const runSpec = (provider: string, i: number) => ({
  provider,
  pipeline: "train",
  parameters: [{ name: "dataset", value: `s3://data/${i}` }],
});

/**
 * Counts Runs reaching Synchronized=Succeeded through one watch (no polling load on the API server),
 * and when each one was seen (`performance.now()`), to tell the operator's start from its pace.
 */
function countSynchronized(
  api: Api,
  namespace: string,
): { done: Promise<void>; stop: () => void; seenAt: number[] } {
  const abort = new AbortController();
  const synced = new Set<string>();
  const seenAt: number[] = [];
  let resolve!: () => void;
  const done = new Promise<void>((r) => {
    resolve = r;
  });
  api.rest
    .watch(
      resourcePath(types.run, { namespace }),
      {},
      (event) => {
        const object = event.object as { metadata?: { name?: string }; status?: { state?: string } };
        const name = object.metadata?.name;
        if (object.status?.state === "Succeeded" && name?.startsWith("op-") && !synced.has(name)) {
          synced.add(name);
          seenAt.push(performance.now());
          if (synced.size === runs) resolve();
        }
      },
      abort.signal,
    )
    .catch(() => {});
  return { done, stop: () => abort.abort(), seenAt };
}

/** The install the bench's Run finalizer policy belongs to (its objects are named after it). */
const policyInstall = "slipway-bench";

/**
 * The kinds' CRDs and Argo's (once), and the Run finalizer policy as `slipway install` applies it:
 * the release bundle's objects for an operator serving `namespaces` (the bench's), untimed.
 */
async function installKinds(api: Api, namespaces: string[]): Promise<void> {
  for (const kind of pipelineKinds) await api.apply(types.crd, crdManifest(kind) as never);
  await installArgoCrds(api);
  for (const object of releaseRunFinalizerPolicy(policyInstall, namespaces))
    await api.apply(runFinalizerPolicyType(object.kind), object as never);
  await sleep(2_000); // CRDs served
}

async function removePolicy(api: Api): Promise<void> {
  for (const object of releaseRunFinalizerPolicy(policyInstall, "all"))
    await api.delete(runFinalizerPolicyType(object.kind), "", object.metadata?.name ?? "");
}

/** Until the API server applies the policy in `namespace` (a dry-run create of a Run shows it). */
async function policyApplied(api: Api, namespace: string, provider: string): Promise<void> {
  await until(
    "the Run finalizer policy applied",
    async () => {
      const run = await api.rest.request<{ metadata: { finalizers?: string[] } }>(
        "POST",
        resourcePath(types.run, { namespace }),
        {
          query: { dryRun: "All" },
          body: {
            apiVersion: group,
            kind: "Run",
            metadata: { name: "probe", namespace },
            spec: runSpec(provider, 0),
          },
        },
      );
      return run.metadata.finalizers?.includes(finalizer) ?? false;
    },
    { timeoutMs: 60_000, pollMs: 250 },
  );
}

/** A namespace with the backend's Provider (and its token Secret) and a synchronized Pipeline `train` (untimed). */
async function setUp(api: Api, config: KubeConfig, namespace: string, backend: BenchBackend): Promise<void> {
  await api.create(namespaceType, {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: namespace },
  });
  await api.create({ group: "", version: "v1", kind: "Secret", plural: "secrets", namespaced: true }, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "kfp", namespace },
    stringData: { token },
  } as never);
  await api.create(types.provider, {
    apiVersion: group,
    kind: "Provider",
    metadata: { name: backend.type, namespace },
    spec: backend.providerSpec,
  });
  await api.create(types.pipeline, {
    apiVersion: group,
    kind: "Pipeline",
    metadata: { name: "train", namespace },
    spec: pipelineSpec(backend.type),
  });
  const setup = await startPipelinesOperator(config, operatorOptions);
  await until(
    "the Pipeline synchronized",
    async () => {
      const pipeline = await api.get<{ status?: { state?: string } }>(types.pipeline, namespace, "train");
      return pipeline?.status?.state === "Succeeded";
    },
    { timeoutMs: 600_000, pollMs: 250 },
  );
  await setup.stop();
  await policyApplied(api, namespace, backend.type);
}

const createRuns = (api: Api, namespace: string, provider: string, names: string[]) =>
  pool(names, 16, (name) =>
    api.create(types.run, {
      apiVersion: group,
      kind: "Run",
      metadata: { name, namespace },
      spec: runSpec(provider, Number(name.split("-")[1])),
    }),
  );

/** Requests per Run by `METHOD code` (`GET 200`, `PATCH 409`…), from counts taken over all the Runs. */
function perRun(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(counts)
      .filter(([, count]) => count > 0)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([call, count]) => [call, Number((count / runs).toFixed(2))]),
  );
}

/** `/apis/g/v/namespaces/ns/runs/op-1/status?…` → `runs/{name}/status`; a watch is `WATCH runs`. */
function requestLabel(method: string, path: string): string {
  const [route = "", query = ""] = path.split("?");
  const parts = route.split("/").filter(Boolean);
  const rest = parts.slice(parts[0] === "api" ? 2 : 3);
  const [plural = "", name, subresource] = rest[0] === "namespaces" && rest.length > 2 ? rest.slice(2) : rest;
  const resource = [plural, name && "{name}", subresource].filter(Boolean).join("/");
  const verb = method === "GET" && new URLSearchParams(query).get("watch") === "true" ? "WATCH" : method;
  return `${verb} ${resource}`;
}

interface RequestTally {
  /** Requests by `METHOD resource code`. */
  counts: () => Record<string, number>;
  /** The mean milliseconds (request start → response end) of those made at least once per 10 Runs. */
  meanMs: () => Record<string, number>;
  stop: () => void;
}

/**
 * Kubernetes requests by `METHOD resource code`, informers' lists and watches included, from Node's
 * http client diagnostics channel: the operator's own user agent tells its requests (`operator`)
 * from the bench's (`plain`: the floor's, when the operator is stopped).
 */
function tallyRequests(whose: "operator" | "plain"): RequestTally {
  const counts: Record<string, number> = {};
  const totalMs: Record<string, number> = {};
  const startedAt = new WeakMap<ClientRequest, number>();
  const mine = (request: ClientRequest) =>
    String(request.getHeader("user-agent") ?? "").startsWith("slipway-operator/") === (whose === "operator");
  const onStart = (message: unknown) => {
    const { request } = message as { request: ClientRequest };
    if (mine(request)) startedAt.set(request, performance.now());
  };
  const onResponse = (message: unknown) => {
    const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
    if (!mine(request)) return;
    const label = `${requestLabel(request.method, request.path)} ${response.statusCode}`;
    counts[label] = (counts[label] ?? 0) + 1;
    totalMs[label] =
      (totalMs[label] ?? 0) + performance.now() - (startedAt.get(request) ?? performance.now());
  };
  subscribe("http.client.request.start", onStart);
  subscribe("http.client.response.finish", onResponse);
  return {
    counts: () => ({ ...counts }),
    meanMs: () =>
      Object.fromEntries(
        Object.entries(counts)
          .filter(([label, count]) => count >= runs / 10 && !label.startsWith("WATCH"))
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([label, count]) => [label, Math.round((totalMs[label] ?? 0) / count)]),
      ),
    stop: () => {
      unsubscribe("http.client.request.start", onStart);
      unsubscribe("http.client.response.finish", onResponse);
    },
  };
}

/**
 * The operator, started with 1,000 Runs waiting (created untimed), until it synchronized them all:
 * the seconds, and what it sent per Run (Kubernetes requests; the backend's calls, for a remote one).
 */
async function timeOperator(api: Api, config: KubeConfig, namespace: string, backend: BenchBackend) {
  await createRuns(
    api,
    namespace,
    backend.type,
    Array.from({ length: runs }, (_, i) => `op-${i}`),
  );
  const counter = countSynchronized(api, namespace);
  const backendBefore = await backend.calls();
  const requests = tallyRequests("operator");
  const started = performance.now();
  const cpu = process.cpuUsage();
  const operator = await startPipelinesOperator(config, operatorOptions);
  const startSeconds = (performance.now() - started) / 1000;
  await counter.done;
  const seconds = (performance.now() - started) / 1000;
  const firstSeconds = ((counter.seenAt[0] ?? started) - started) / 1000;
  const cpuSeconds = cpuSecondsSince(cpu);
  counter.stop();
  await sleep(1_000); // the last status writes' watch events: any request they cause is counted
  requests.stop();
  const kube = perRun(requests.counts());
  const requestMs = requests.meanMs();
  const backendCalls = perRun(subtract(await backend.calls(), backendBefore));
  await operator.stop();
  return {
    seconds,
    cpuSeconds,
    startSeconds,
    firstSeconds,
    requestMs,
    perRun: { kube, backend: backendCalls },
  };
}

/**
 * This process's CPU seconds (user + system) since `start`: the operator or the floor, plus what
 * both phases share (the test backend in this process, the bench's own watch).
 */
function cpuSecondsSince(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1e6;
}

function subtract(after: Record<string, number>, before: Record<string, number>) {
  return Object.fromEntries(
    Object.entries(after).map(([call, count]) => [call, count - (before[call] ?? 0)]),
  );
}

/** The status the operator writes for a Run just created in the backend. */
function submittedStatus(namespace: string, provider: ProviderConfig, name: string, id: string) {
  const runVersion = versionOf(runSpec(provider.key.name, Number(name.split("-")[1])));
  const providerName = `${namespace}/${provider.key.name}`;
  return statusOf(
    {
      state: "Succeeded",
      provider: providerName,
      id,
      version: runVersion,
      providerVersion: provider.version,
      failedAttempts: 0,
      observedGeneration: 1,
    },
    undefined,
    { message: `created in provider ${providerName} as ${id} (version ${runVersion})` },
    undefined,
    new Date(),
  );
}

/**
 * Seconds for the floor, with the operator stopped: the same backend call per Run (argo: the same
 * Workflow, built by the same pure function; kfp: the same POST /runs body) and one status write
 * per Run, by a plain client at the same concurrency.
 */
async function timeFloor(api: Api, namespace: string, backend: BenchBackend) {
  const floorRuns = Array.from({ length: runs }, (_, i) => `floor-${i}`);
  await createRuns(api, namespace, backend.type, floorRuns);
  const provider = await api.get<never>(types.provider, namespace, backend.type);
  const pipeline = await api.get<{ spec: ReturnType<typeof pipelineSpec> }>(
    types.pipeline,
    namespace,
    "train",
  );
  if (!provider || !pipeline) throw new Error("setup objects missing");
  const providerSettings = providerConfig(provider);
  const version = versionOf(pipeline.spec);
  const pipelineOwner = { object: pipeline as never, kind: "Pipeline", namespace, name: "train" };
  const requests = tallyRequests("plain");
  const floorStarted = performance.now();
  const cpu = process.cpuUsage();
  await pool(floorRuns, concurrency, async (name) => {
    const owner = { object: {}, kind: "Run", namespace, name };
    const run: RunDefinition = {
      owner,
      pipeline: { owner: pipelineOwner, name: "train", version, spec: pipeline.spec as never },
      parameters: runSpec(backend.type, Number(name.split("-")[1])).parameters,
      artifacts: [],
    };
    const id = await backend.submit(run, providerSettings);
    await api.apply(
      types.run,
      {
        apiVersion: group,
        kind: "Run",
        metadata: { name, namespace },
        status: submittedStatus(namespace, providerSettings, name, id),
      } as never,
      "status",
    );
  });
  const seconds = (performance.now() - floorStarted) / 1000;
  const cpuSeconds = cpuSecondsSince(cpu);
  requests.stop();
  return { seconds, cpuSeconds, requestMs: requests.meanMs() };
}

/**
 * Deletes a measured namespace and waits until it is gone. The operator is stopped by then, and its
 * finalizer (every kfp and vertex Run and Pipeline) would hold the namespace in Terminating for
 * good — and the next backend's operator, serving all namespaces, would spend its timed run
 * cleaning up after this one. The finalizers are dropped instead: the test backends' objects go
 * with their servers at the end of the bench.
 */
async function removeNamespace(api: Api, namespace: string): Promise<void> {
  for (const type of [types.run, types.pipeline, types.experiment, types.runSchedule]) {
    const held = (await api.list(type, namespace)).filter((o) => o.metadata?.finalizers?.length);
    await pool(held, 16, (object) =>
      api.mergePatch(type, namespace, object.metadata?.name ?? "", { metadata: { finalizers: null } }),
    );
  }
  await api.delete(namespaceType, "", namespace);
  await until("the namespace deleted", async () => !(await api.get(namespaceType, "", namespace)), {
    timeoutMs: 600_000,
    pollMs: 1_000,
  });
}

/** One backend, in a namespace of its own that is removed afterwards (untimed). */
async function measure(api: Api, config: KubeConfig, backend: BenchBackend, namespace: string) {
  await setUp(api, config, namespace, backend);
  try {
    const operator = await timeOperator(api, config, namespace, backend);
    const floor = await timeFloor(api, namespace, backend);
    return {
      seconds: Number(operator.seconds.toFixed(2)),
      floor_seconds: Number(floor.seconds.toFixed(2)),
      ratio: Number((operator.seconds / floor.seconds).toFixed(3)),
      start_seconds: Number(operator.startSeconds.toFixed(2)),
      first_synchronized_seconds: Number(operator.firstSeconds.toFixed(2)),
      cpu_seconds: Number(operator.cpuSeconds.toFixed(2)),
      floor_cpu_seconds: Number(floor.cpuSeconds.toFixed(2)),
      backend_runs: await backend.count(namespace),
      request_ms: operator.requestMs,
      floor_request_ms: floor.requestMs,
      per_run: operator.perRun,
    };
  } finally {
    await removeNamespace(api, namespace);
  }
}

/**
 * The argo backend, then kfp (against the test KFP server; skipped without the kfp venv), then vertex
 * (against the test Vertex endpoint). Top-level figures: the sums.
 */
export default async function bench(): Promise<BenchFigures> {
  const plane = await benchControlPlane("pipelines", 1);
  const config = plane.kubeConfig;
  const external = process.env.SLIPWAY_BENCH_KUBECONFIG !== undefined;
  const api = new Api(config);
  const python = kfpPython();
  const server = python ? await startKfpServer(python, { token }) : undefined;
  const vertex = await startVertexServer();
  try {
    const measured: Record<string, Awaited<ReturnType<typeof measure>>> = {};
    const measuredBackends = [
      argoBench(api),
      ...(server ? [kfpBench(server)] : []),
      await vertexBench(vertex),
    ].filter((backend) => selected.includes(backend.type));
    const stamp = Date.now().toString(36);
    const namespaceOf = (backend: BenchBackend) => `bench-${backend.type}-${stamp}`;
    await installKinds(api, measuredBackends.map(namespaceOf));
    for (const backend of measuredBackends)
      measured[backend.type] = await measure(api, config, backend, namespaceOf(backend));
    const all = Object.values(measured);
    const sum = (pick: (f: (typeof all)[number]) => number) =>
      Number(all.reduce((t, f) => t + pick(f), 0).toFixed(2));
    return {
      seconds: sum((f) => f.seconds),
      floor_seconds: sum((f) => f.floor_seconds),
      runs,
      concurrency,
      backends: measured,
      ...(server ? {} : { skipped: "kfp: the kfp venv is missing (tools/setup/40-kfp-sdk.sh)" }),
      control_plane: external ? "external" : "private",
    };
  } finally {
    await removePolicy(api).catch(() => {});
    await server?.stop();
    await vertex.stop();
    api.close();
    await plane.stop();
  }
}
