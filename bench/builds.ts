/**
 * `npm run bench -- builds`: 500 ImageBuilds whose images already exist in a real registry, reused by
 * three implementations side by side on one private control plane:
 * - seconds: a Manager running Slipway's ImageBuild controller, started with 500 builds waiting, until
 *   all are Succeeded (reused);
 * - floor_seconds: a plain client doing what cannot be saved — 500 manifest HEADs (basic auth, on
 *   kept-alive connections) and 500 status writes (server-side apply) at the controller's concurrency;
 * - peer_seconds: the controller-runtime peer (bench/peers/controller-runtime, mode `builds`: the same
 *   reuse path, one registry HEAD and one status write per build, at the same concurrency), from its
 *   manager's start until it wrote every status; ratio_to_peer = seconds / peer_seconds;
 * - each the median of SLIPWAY_BENCH_ROUNDS (3) rounds, each in fresh namespaces, the order alternating;
 * - per build, for each of the three: API writes (every non-GET), reads (GETs other than informers'
 *   lists and watches) and registry HEADs; Slipway's requests also by verb;
 * - where a build's time goes, mean ms: registry_head_ms and reconcile_ms (Slipway's own metrics: the
 *   reconcile is the HEAD, then the status write), peer_registry_head_ms and peer_status_write_ms,
 *   floor_registry_head_ms and floor_status_write_ms;
 * - webhook_calls_plain_builds: reviews the admission webhook (served and registered as the operator
 *   does, failurePolicy Fail) received while every round's builds were created and reused (0: it is
 *   not on their path); webhook_calls_secret_build: the same for one build with a Secret argument (1);
 * - local_build_seconds: one real build of a small image by the local backend (buildah, dev mode),
 *   from the ImageBuild's creation to Succeeded: artifact from MinIO, build, push, digest.
 * Progress goes to stderr; a step that takes over SLIPWAY_BENCH_STEP_TIMEOUT_S (600) fails the bench.
 * On a private control plane, or the one SLIPWAY_BENCH_KUBECONFIG names.
 */
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type KubeConfig, KubernetesObjectApi, PatchStrategy } from "@kubernetes/client-node";
import pino from "pino";
import { ImageBuildKind } from "../src/apis/builds/imagebuild.ts";
import { toCrd } from "../src/apis/crd.ts";
import { parseBuildsConfig } from "../src/builds/config.ts";
import { imageBuildController } from "../src/builds/controller.ts";
import { LocalBuilder } from "../src/builds/local-builder.ts";
import { types } from "../src/builds/resource-types.ts";
import { resourcePath } from "../src/kube/keys.ts";
import { Manager } from "../src/kube/manager.ts";
import { RestClient } from "../src/kube/rest.ts";
import {
  type BuildServers,
  startBuildServers,
  uploadContext,
} from "../test/support/fakes/build-server-children.ts";
import { pushImage } from "../test/support/fakes/push-image.ts";
import { type CountedWebhook, countedWebhook } from "./builds/webhook.ts";
import { goPeer } from "./peers/build.ts";
import type { BenchFigures } from "./run.ts";
import { benchControlPlane, figuresOf, median, pool, sleep } from "./support.ts";

const builds = 500;
/** The bench's registry user (basic auth, as a platform's registry would ask) and its artifact bucket. */
const registryUser = { username: "bench", password: "bench-registry-pass" };
const bucket = "artifacts";
const concurrency = imageBuildController({ config: undefined }).concurrency ?? 4;
const apply = { contentType: "application/apply-patch+yaml", query: { fieldManager: "bench", force: true } };
/** Rounds of floor, Slipway and peer runs; each figure is the median over the rounds. */
const roundCount = Number(process.env.SLIPWAY_BENCH_ROUNDS ?? 3);
const stepTimeoutMs = Number(process.env.SLIPWAY_BENCH_STEP_TIMEOUT_S ?? 600) * 1000;

const benchStarted = performance.now();
/** A progress line on stderr: the step and the seconds since the bench started. */
function progress(step: string) {
  const at = ((performance.now() - benchStarted) / 1000).toFixed(1);
  process.stderr.write(`[bench builds +${at}s] ${step}\n`);
}

/** `work`, announced on stderr; an error naming `step` if it is not done within the step timeout. */
async function step<T>(name: string, work: () => Promise<T>): Promise<T> {
  progress(name);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`bench builds: ${name} not done after ${stepTimeoutMs / 1000} s`)),
      stepTimeoutMs,
    );
  });
  try {
    return await Promise.race([work(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** What one implementation did for every build of a run: its seconds and its requests. */
interface RunFigures {
  seconds: number;
  /** CPU seconds (user + system) of the process that did the work, during the run. */
  cpuSeconds: number;
  writes: number;
  reads: number;
  registryHeads: number;
  byVerb?: Record<string, number>;
  /** Where a build's time goes: mean milliseconds of a registry HEAD, of a status write, of a reconcile. */
  headMs?: number;
  writeMs?: number;
  reconcileMs?: number;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

/** `work`'s duration in milliseconds pushed on `into`. */
async function timed<T>(into: number[], work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    into.push(performance.now() - started);
  }
}

/** A floor HEAD on a kept-alive connection (as Slipway's registry client sends it); its digest header. */
function floorHead(agent: http.Agent, url: string, authorization: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: "HEAD",
        agent,
        headers: { authorization, accept: "application/vnd.oci.image.manifest.v1+json" },
      },
      (response) => {
        response.resume();
        const digest = response.headers["docker-content-digest"];
        resolve(typeof digest === "string" ? digest : undefined);
      },
    );
    request.on("error", reject);
    request.end();
  });
}

const spec = (version: string) => ({
  project: "bench",
  name: "model",
  version,
  artifactUri: `s3://${bucket}/bench/model`,
});

async function createNamespace(rest: RestClient, name: string, secrets: BuildServers) {
  await rest.request("POST", "/api/v1/namespaces", {
    body: { apiVersion: "v1", kind: "Namespace", metadata: { name } },
  });
  const auth = Buffer.from(`${registryUser.username}:${registryUser.password}`).toString("base64");
  await rest.request("POST", `/api/v1/namespaces/${name}/secrets`, {
    body: {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "registry-creds" },
      type: "kubernetes.io/dockerconfigjson",
      stringData: {
        ".dockerconfigjson": JSON.stringify({ auths: { [secrets.registry.address]: { auth } } }),
      },
    },
  });
  await rest.request("POST", `/api/v1/namespaces/${name}/secrets`, {
    body: {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s3-creds" },
      stringData: {
        AWS_ACCESS_KEY_ID: secrets.s3.accessKeyId,
        AWS_SECRET_ACCESS_KEY: secrets.s3.secretAccessKey,
      },
    },
  });
}

async function createBuild(rest: RestClient, namespace: string, name: string, buildSpec: object) {
  await rest.request("POST", resourcePath(types.imageBuild, { namespace }), {
    body: {
      apiVersion: ImageBuildKind.apiVersion,
      kind: ImageBuildKind.kind,
      metadata: { name, namespace },
      spec: buildSpec,
    },
  });
}

/**
 * Resolves when `count` builds of the namespace are in `phase`, seen through one watch; rejects when a
 * build fails or the watch ends first (never waits on a closed watch).
 */
function waitForPhase(rest: RestClient, namespace: string, phase: string, count: number) {
  const abort = new AbortController();
  const seen = new Set<string>();
  const done = new Promise<void>((resolve, reject) => {
    const onEvent = (event: { object: unknown }) => {
      const object = event.object as {
        metadata?: { name?: string };
        status?: { phase?: string; message?: string };
      };
      if (object.status?.phase === "Failed")
        reject(new Error(`${object.metadata?.name} failed: ${object.status.message}`));
      if (object.status?.phase === phase && object.metadata?.name) seen.add(object.metadata.name);
      if (seen.size >= count) resolve();
    };
    const ended = () =>
      `the watch of ImageBuilds in ${namespace} ended with ${seen.size} of ${count} ${phase}`;
    rest
      .watch(resourcePath(types.imageBuild, { namespace }), {}, onEvent, abort.signal)
      .then(() => reject(new Error(ended())), reject);
  });
  done.catch(() => {}); // handled where it is awaited; never an unhandled rejection before that
  return { done, stop: () => abort.abort() };
}

async function runOperator(
  kubeConfig: KubeConfig,
  namespace: string,
  config: unknown,
  localBuilder?: LocalBuilder,
) {
  const spec = imageBuildController({
    config: parseBuildsConfig(config),
    // the local backend builds on this machine: only in dev mode, which the bench is
    ...(localBuilder ? { localBuilder, devMode: true } : {}),
  });
  const manager = new Manager({
    kubeConfig,
    namespace,
    fieldManager: "slipway-bench",
    clientRateLimit: false, // as the peer (QPS < 0)
    log: pino({ level: "silent" }),
  });
  manager.add(spec);
  await manager.start();
  return { manager, metrics: spec.buildMetrics };
}

/** The floor: what any implementation must do per build, by a plain client at the same concurrency. */
async function floorRun(
  kubeConfig: KubeConfig,
  servers: BuildServers,
  floorNs: string,
  versions: string[],
): Promise<RunFigures> {
  const byVerb: Record<string, number> = {};
  const rest = new RestClient(kubeConfig, {
    onRequest: (_, method) => {
      byVerb[method] = (byVerb[method] ?? 0) + 1;
    },
  });
  const basic = `Basic ${Buffer.from(`${registryUser.username}:${registryUser.password}`).toString("base64")}`;
  const agent = new http.Agent({ keepAlive: true });
  let registryHeads = 0;
  const heads: number[] = [];
  const writes: number[] = [];
  const floorStarted = performance.now();
  const cpuBefore = process.cpuUsage();
  await pool(versions, concurrency, async (version) => {
    registryHeads++;
    const url = `http://${servers.registry.address}/v2/bench-model/manifests/${version}`;
    const digest = await timed(heads, () => floorHead(agent, url, basic));
    if (!digest) throw new Error(`floor: no digest for ${version}`);
    const image = `${servers.registry.address}/bench-model:${version}`;
    await timed(writes, () => writeReused(rest, floorNs, `floor-${version}`, image, digest));
  });
  const seconds = (performance.now() - floorStarted) / 1000;
  const cpuSeconds = cpuSecondsSince(cpuBefore);
  rest.close();
  agent.destroy();
  const { GET: reads = 0, ...byWrite } = byVerb;
  return {
    seconds,
    cpuSeconds,
    reads,
    writes: Object.values(byWrite).reduce((a, b) => a + b, 0),
    registryHeads,
    headMs: mean(heads),
    writeMs: mean(writes),
  };
}

function cpuSecondsSince(before: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(before);
  return (user + system) / 1e6;
}

/** The status the reuse path writes: Succeeded, reused, the digest (server-side apply). */
async function writeReused(rest: RestClient, namespace: string, name: string, image: string, digest: string) {
  const now = new Date().toISOString();
  const message = "already exists";
  await rest.request("PATCH", resourcePath(types.imageBuild, { namespace, name, subresource: "status" }), {
    ...apply,
    body: {
      apiVersion: ImageBuildKind.apiVersion,
      kind: ImageBuildKind.kind,
      metadata: { name, namespace },
      status: {
        phase: "Succeeded",
        image,
        digest,
        reused: true,
        message,
        observedGeneration: 1,
        completedAt: now,
        conditions: [
          {
            type: "Succeeded",
            status: "True",
            reason: "Reused",
            message,
            observedGeneration: 1,
            lastTransitionTime: now,
          },
        ],
      },
    },
  });
}

/** Slipway's requests of a finished run: writes (every non-GET) and reads (GETs less the informers' lists and watches). */
async function operatorRequests(manager: Manager) {
  await manager.events.flush();
  const byVerb = await manager.metrics.requestsByMethod();
  const informed = manager.cache
    .informers()
    .reduce((sum, informer) => sum + informer.stats.listPages + informer.stats.watches, 0);
  const { GET: gets = 0, ...writes } = byVerb;
  byVerb.GET = gets - informed;
  return { byVerb, reads: gets - informed, writes: Object.values(writes).reduce((a, b) => a + b, 0) };
}

type Metric = { get: () => Promise<{ values: { value: number; metricName?: string }[] }> };

const counted = async (counter: Metric) => (await counter.get()).values.reduce((sum, v) => sum + v.value, 0);

/** A histogram's mean, in milliseconds (its _sum over its _count). */
async function histogramMeanMs(histogram: Metric): Promise<number> {
  const { values } = await histogram.get();
  const total = (suffix: string) =>
    values.filter((v) => v.metricName?.endsWith(suffix)).reduce((sum, v) => sum + v.value, 0);
  return (1000 * total("_sum")) / Math.max(1, total("_count"));
}

/** Every build of the namespace Succeeded and reused, or an error naming one that is not. */
async function checkAllReused(rest: RestClient, namespace: string) {
  const list = await rest.request<{ items: { metadata: { name: string }; status?: { reused?: boolean } }[] }>(
    "GET",
    resourcePath(types.imageBuild, { namespace }),
  );
  const other = list.items.find((build) => build.status?.reused !== true);
  if (list.items.length !== builds || other)
    throw new Error(
      `slipway: ${list.items.length} builds in ${namespace}, ${other?.metadata.name} not reused`,
    );
}

/**
 * The controller, started with every build of the namespace waiting, until it wrote all their
 * statuses (its own count, as the peer's: no watch in its process), then checked through the API.
 */
async function operatorRun(
  kubeConfig: KubeConfig,
  rest: RestClient,
  namespace: string,
  config: unknown,
): Promise<RunFigures> {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const operator = await runOperator(kubeConfig, namespace, config);
  const startSeconds = (performance.now() - started) / 1000;
  while ((await counted(operator.metrics.reused)) < builds) {
    if ((await counted(operator.metrics.failed)) > 0)
      throw new Error(`slipway: a build in ${namespace} failed`);
    await sleep(10);
  }
  const seconds = (performance.now() - started) / 1000;
  const cpuSeconds = cpuSecondsSince(cpuBefore);
  const requests = await operatorRequests(operator.manager);
  await operator.manager.stop();
  await checkAllReused(rest, namespace);
  const registryHeads = await counted(operator.metrics.registryRequests);
  const headMs = await histogramMeanMs(operator.metrics.registryLatency);
  const reconcileMs = await histogramMeanMs(operator.manager.metrics.reconcileTime);
  progress(`slipway: manager started (caches synced) after ${startSeconds.toFixed(2)} s`);
  return { seconds, cpuSeconds, registryHeads, headMs, reconcileMs, ...requests };
}

type BenchConfig = ReturnType<typeof operatorConfig>;

function operatorConfig(servers: BuildServers) {
  return {
    registry: { url: servers.registry.address, insecure: true, credentialsSecret: "registry-creds" },
    storage: {
      type: "s3",
      s3: { endpoint: servers.s3.endpoint, forcePathStyle: true, credentialsSecret: "s3-creds" },
    },
    naming: { image: "{registry}/{project}-{name}:{version}" },
    // the images every round reuses are shared by its fresh namespaces
    tenancy: { repositoryPrefix: "" },
  };
}

/** The ImageBuild CRD, the local build's namespace, and the images every round reuses. */
async function prepare(kubeConfig: KubeConfig, rest: RestClient, servers: BuildServers, localNs: string) {
  await KubernetesObjectApi.makeApiClient(kubeConfig).patch(
    toCrd(ImageBuildKind),
    undefined,
    undefined,
    "slipway-bench",
    true,
    PatchStrategy.ServerSideApply,
  );
  await sleep(2_000); // the CRD served
  await createNamespace(rest, localNs, servers);
  const versions = Array.from({ length: builds }, (_, i) => `v${i}`);
  await pushImage(servers.registry.address, "bench-model", "v0", registryUser);
  await tagAll(servers.registry.address, "bench-model", versions);
  return versions;
}

/** Tags the image `repository:v0` as each of `tags` (a manifest PUT each: the bench's setup, not measured). */
async function tagAll(registry: string, repository: string, tags: string[]) {
  const base = `http://${registry}/v2/${repository}/manifests`;
  const authorization = `Basic ${Buffer.from(`${registryUser.username}:${registryUser.password}`).toString("base64")}`;
  const mediaType = "application/vnd.oci.image.manifest.v1+json";
  const manifest = await fetch(`${base}/v0`, { headers: { authorization, accept: mediaType } });
  if (!manifest.ok) throw new Error(`GET ${base}/v0: ${manifest.status}`);
  const body = await manifest.text();
  await pool(tags, 8, async (tag) => {
    const put = await fetch(`${base}/${tag}`, {
      method: "PUT",
      headers: { authorization, "content-type": mediaType },
      body,
    });
    if (put.status !== 201) throw new Error(`PUT ${base}/${tag}: ${put.status}`);
  });
}

interface RoundContext {
  kubeConfig: KubeConfig;
  kubeconfig: string;
  rest: RestClient;
  servers: BuildServers;
  config: BenchConfig;
  peer: string;
  suffix: string;
}

/** The controller-runtime peer on its own namespace's builds, from its manager's start to the last status written. */
async function peerRun(context: RoundContext, namespace: string): Promise<RunFigures> {
  const args = [
    context.kubeconfig,
    namespace,
    context.servers.registry.address,
    String(builds),
    String(concurrency),
  ];
  const figures = await figuresOf<{
    seconds: number;
    cpu_seconds: number;
    writes: number;
    reads: number;
    registry_heads: number;
    head: { sum_ms: number };
    status_write: { sum_ms: number };
  }>(context.peer, ["builds", ...args]);
  const { seconds, writes, reads } = figures;
  return {
    seconds,
    writes,
    reads,
    cpuSeconds: figures.cpu_seconds,
    registryHeads: figures.registry_heads,
    headMs: figures.head.sum_ms / Math.max(1, figures.registry_heads),
    writeMs: figures.status_write.sum_ms / Math.max(1, writes),
  };
}

const roundNamespaces = (suffix: string, index: number) =>
  ["op", "floor", "peer"].map((n) => `bench-builds-${n}-${suffix}-${index}`) as [string, string, string];

/** One round in fresh namespaces: the floor, Slipway and the peer, in the order the round's parity says. */
async function round(index: number, context: RoundContext, versions: string[]) {
  const { kubeConfig, rest, servers, config } = context;
  const [operatorNs, floorNs, peerNs] = roundNamespaces(context.suffix, index);
  await step(`round ${index}: namespaces and ${3 * versions.length} ImageBuilds`, async () => {
    for (const ns of [operatorNs, floorNs, peerNs]) await createNamespace(rest, ns, servers);
    await pool(versions, 16, async (version) => {
      await createBuild(rest, operatorNs, `op-${version}`, spec(version));
      await createBuild(rest, floorNs, `floor-${version}`, spec(version));
      await createBuild(rest, peerNs, `peer-${version}`, spec(version));
    });
  });
  const runs = {
    floor: () => step(`round ${index}: floor`, () => floorRun(kubeConfig, servers, floorNs, versions)),
    slipway: () => step(`round ${index}: slipway`, () => operatorRun(kubeConfig, rest, operatorNs, config)),
    peer: () => step(`round ${index}: peer`, () => peerRun(context, peerNs)),
  };
  // alternate which goes first, so that neither always meets a fresher control plane
  const order =
    index % 2 === 0 ? (["floor", "slipway", "peer"] as const) : (["peer", "slipway", "floor"] as const);
  const figures: Partial<Record<keyof typeof runs, RunFigures>> = {};
  for (const subject of order) figures[subject] = await runs[subject]();
  return figures as Record<keyof typeof runs, RunFigures>;
}

/** One real local build: artifact in MinIO → buildah → push → digest, from creation to Succeeded. */
async function localBuild(context: RoundContext, localNs: string) {
  const { kubeConfig, rest, servers, config, suffix } = context;
  await uploadContext(servers, "local/model", {
    Dockerfile: "FROM scratch\nCOPY model.txt /model.txt\n",
    "model.txt": "weights",
  });
  const storage = await mkdtemp(join(tmpdir(), "slipway-bench-buildah-"));
  try {
    const local = await runOperator(
      kubeConfig,
      localNs,
      { ...config, backend: "local" },
      new LocalBuilder(join(storage, "storage")),
    );
    const localWatch = waitForPhase(rest, localNs, "Succeeded", 1);
    const started = performance.now();
    await createBuild(rest, localNs, "local", {
      ...spec(`local-${suffix}`),
      artifactUri: `s3://${bucket}/local/model`,
    });
    await localWatch.done;
    const seconds = (performance.now() - started) / 1000;
    localWatch.stop();
    await local.manager.stop();
    return seconds;
  } finally {
    // buildah's storage of the one local build: each run left one behind in the temporary directory
    await rm(storage, { recursive: true, force: true });
  }
}

/** Reviews the webhook gets for one build with a Secret argument (admitted: the bench's user may get it). */
async function webhookCallsForSecretBuild(rest: RestClient, webhook: CountedWebhook, namespace: string) {
  await rest.request("POST", `/api/v1/namespaces/${namespace}/secrets`, {
    body: { apiVersion: "v1", kind: "Secret", metadata: { name: "pip" }, stringData: { token: "t0k" } },
  });
  const before = webhook.calls();
  await createBuild(rest, namespace, "with-secret", {
    ...spec("secret"),
    buildArgs: [{ name: "PIP_TOKEN", valueFrom: { secretKeyRef: { name: "pip", key: "token" } } }],
  });
  return webhook.calls() - before;
}

const rounded = (value: number) => Number(value.toFixed(3));
const perBuild = (values: number[]) => rounded(median(values) / builds);

/** The JSON line's figures of the rounds: medians, per build. */
function summary(rounds: Record<"floor" | "slipway" | "peer", RunFigures>[]) {
  const of = (subject: "floor" | "slipway" | "peer") => rounds.map((r) => r[subject]);
  const seconds = median(of("slipway").map((r) => r.seconds));
  const peerSeconds = median(of("peer").map((r) => r.seconds));
  const verbs = [...new Set(of("slipway").flatMap((r) => Object.keys(r.byVerb ?? {})))].sort();
  return {
    seconds: rounded(seconds),
    floor_seconds: rounded(median(of("floor").map((r) => r.seconds))),
    peer: "controller-runtime v0.25.2",
    peer_seconds: rounded(peerSeconds),
    ratio_to_peer: rounded(seconds / peerSeconds),
    builds,
    concurrency,
    seconds_each: of("slipway").map((r) => rounded(r.seconds)),
    floor_seconds_each: of("floor").map((r) => rounded(r.seconds)),
    peer_seconds_each: of("peer").map((r) => rounded(r.seconds)),
    cpu_seconds: rounded(median(of("slipway").map((r) => r.cpuSeconds))),
    peer_cpu_seconds: rounded(median(of("peer").map((r) => r.cpuSeconds))),
    floor_cpu_seconds: rounded(median(of("floor").map((r) => r.cpuSeconds))),
    writes_per_build: perBuild(of("slipway").map((r) => r.writes)),
    reads_per_build: perBuild(of("slipway").map((r) => r.reads)),
    registry_heads_per_build: perBuild(of("slipway").map((r) => r.registryHeads)),
    requests_per_build_by_verb: Object.fromEntries(
      verbs.map((verb) => [verb, perBuild(of("slipway").map((r) => r.byVerb?.[verb] ?? 0))]),
    ),
    peer_writes_per_build: perBuild(of("peer").map((r) => r.writes)),
    peer_reads_per_build: perBuild(of("peer").map((r) => r.reads)),
    peer_registry_heads_per_build: perBuild(of("peer").map((r) => r.registryHeads)),
    floor_writes_per_build: perBuild(of("floor").map((r) => r.writes)),
    floor_reads_per_build: perBuild(of("floor").map((r) => r.reads)),
    floor_registry_heads_per_build: perBuild(of("floor").map((r) => r.registryHeads)),
    ...latencySummary(of),
  };
}

/** Mean milliseconds per request, medians over the rounds: where a build's time goes in each of the three. */
function latencySummary(of: (subject: "floor" | "slipway" | "peer") => RunFigures[]) {
  const ms = (subject: "floor" | "slipway" | "peer", field: "headMs" | "writeMs" | "reconcileMs") =>
    rounded(median(of(subject).map((r) => r[field] ?? 0)));
  return {
    registry_head_ms: ms("slipway", "headMs"),
    reconcile_ms: ms("slipway", "reconcileMs"),
    peer_registry_head_ms: ms("peer", "headMs"),
    peer_status_write_ms: ms("peer", "writeMs"),
    floor_registry_head_ms: ms("floor", "headMs"),
    floor_status_write_ms: ms("floor", "writeMs"),
  };
}

/** The rounds, the webhook's calls and the local build, on a plane with the CRD, the images and the build servers. */
async function measure(context: RoundContext, versions: string[], localNs: string, webhookNs: string) {
  const { rest, servers } = context;
  await createNamespace(rest, webhookNs, servers);
  const all = Array.from({ length: roundCount }, (_, index) => roundNamespaces(context.suffix, index)).flat();
  const webhook = await step("admission webhook", () => countedWebhook(rest, webhookNs, all));
  try {
    const rounds: Record<"floor" | "slipway" | "peer", RunFigures>[] = [];
    for (let index = 0; index < roundCount; index++) {
      rounds.push(await round(index, context, versions));
      progress(`round ${index}: ${JSON.stringify(rounds.at(-1))}`);
    }
    const plainCalls = webhook.calls();
    const secretCalls = await step("a build with a Secret argument", () =>
      webhookCallsForSecretBuild(rest, webhook, webhookNs),
    );
    const localSeconds = await step("local build", () => localBuild(context, localNs));
    return {
      ...summary(rounds),
      webhook_calls_plain_builds: plainCalls,
      webhook_calls_secret_build: secretCalls,
      local_build_seconds: rounded(localSeconds),
    };
  } finally {
    await webhook.stop();
  }
}

export default async function bench(): Promise<BenchFigures> {
  const plane = await step("control plane", () => benchControlPlane("builds", 1));
  const { kubeConfig } = plane;
  const rest = new RestClient(kubeConfig);
  const servers = await step("build servers", () =>
    startBuildServers({ [registryUser.username]: registryUser.password }, bucket),
  );
  const suffix = Date.now().toString(36);
  const [localNs, webhookNs] = [`bench-builds-local-${suffix}`, `bench-builds-webhook-${suffix}`];
  try {
    const versions = await step("CRD, images", () => prepare(kubeConfig, rest, servers, localNs));
    const peer = await step("peer binary", () => goPeer("controller-runtime"));
    const context = {
      kubeConfig,
      kubeconfig: plane.kubeconfig,
      rest,
      servers,
      config: operatorConfig(servers),
      peer,
      suffix,
    };
    return await measure(context, versions, localNs, webhookNs);
  } finally {
    const all = Array.from({ length: roundCount }, (_, index) => roundNamespaces(suffix, index)).flat();
    for (const ns of [localNs, webhookNs, ...all])
      await rest.request("DELETE", `/api/v1/namespaces/${ns}`).catch(() => {});
    await servers.stop();
    await plane.stop();
  }
}
