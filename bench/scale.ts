/**
 * `npm run bench -- scale`: many teams on one operator (#34). On a private kwok control plane:
 * - load: N namespaces (SLIPWAY_BENCH_SCALE_NAMESPACES, default 500), each with an argo Provider,
 *   2 Pipelines, a RunSchedule, 10 ImageBuilds of images a loopback registry already has and 100 Runs,
 *   created at a steady rate (SLIPWAY_BENCH_SCALE_RATE objects/s, default 100) while `slipway operator`
 *   (every controller, a child process) reconciles them; until every status is current;
 * - idle: nothing changing for SLIPWAY_BENCH_SCALE_IDLE_S (60) s: the operator's writes per minute, its RSS;
 * - new objects under that full cache, one at a time (SLIPWAY_BENCH_SCALE_PROBES, 100: Runs and
 *   ImageBuilds alternating, spread over the namespaces): create → first status write seen by the
 *   bench's watch, p50 and p99;
 * - throughput: SLIPWAY_BENCH_SCALE_BURST (200) new objects at once (16 in flight), from the first
 *   create to the last first status: `seconds`;
 * - restart: the operator SIGKILLed and started again, until its caches are synced, it has reconciled
 *   at least every object and its queues are empty: `restart_converge_seconds`, with its writes;
 * - then the controller-runtime peer (bench/peers/controller-runtime, mode `scale`: the same five kinds
 *   and the Workflows cached; per new Run a Workflow applied and a status write, per new ImageBuild a
 *   registry HEAD and a status write, per other object a status write) on the same plane: its start until it has reconciled every
 *   object, idle, RSS, the same probes and burst (`floor_seconds`: so `ratio` is Slipway's burst time
 *   over the peer's).
 * Requests per second are the subjects' own (`rest_client_requests_total`, scraped every second), not
 * the bench's creates. Progress goes to stderr; a step over SLIPWAY_BENCH_STEP_TIMEOUT_S (1800) fails.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allKinds } from "../src/apis/index.ts";
import { resourcePath } from "../src/kube/keys.ts";
import { RestClient } from "../src/kube/rest.ts";
import type { ResourceType } from "../src/kube/types.ts";
import { types } from "../src/pipelines/types.ts";
import { applyCrds } from "../test/support/fakes/apply-crds.ts";
import { type RunningServer, startRegistry } from "../test/support/fakes/build-server-children.ts";
import { Api, installArgoCrds } from "../test/support/fakes/pipelines-operator.ts";
import { pushImage } from "../test/support/fakes/push-image.ts";
import { goPeer } from "./peers/build.ts";
import type { BenchFigures } from "./run.ts";
import { type CounterSample, dueAtMs, peakRate, percentile } from "./scale/figures.ts";
import {
  type Creation,
  imageBuildObject,
  imageBuildType,
  imageRepository,
  imageVersion,
  issueShape,
  namespaceObjects,
  runObject,
  scaleTypes,
} from "./scale/objects.ts";
import {
  isReady,
  progressOf,
  residentMb,
  type Subject,
  scrape,
  startOperator,
  startPeer,
} from "./scale/processes.ts";
import { StatusTracker } from "./scale/tracker.ts";
import { benchControlPlane, pool, sleep } from "./support.ts";

const setting = (name: string, fallback: number) => {
  const variable = `SLIPWAY_BENCH_SCALE_${name}`;
  const value = Number(process.env[variable] ?? fallback);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${variable} must be a positive number, not ${process.env[variable]}`);
  return value;
};
const namespaceCount = setting("NAMESPACES", 500);
const perSecond = setting("RATE", 100);
const probeCount = setting("PROBES", 100);
const burstCount = setting("BURST", 200);
const idleSeconds = setting("IDLE_S", 60);
const stepTimeoutMs = Number(process.env.SLIPWAY_BENCH_STEP_TIMEOUT_S ?? 1800) * 1000;
/** Workers per controller: Slipway's default, and the peer's per kind. */
const concurrency = 4;
const probeLabel = "bench.slipway.dev/probe";

const benchStarted = performance.now();
function progress(line: string) {
  const at = ((performance.now() - benchStarted) / 1000).toFixed(1);
  process.stderr.write(`[bench scale +${at}s] ${line}\n`);
}

async function step<T>(name: string, work: () => Promise<T>): Promise<T> {
  progress(name);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`bench scale: ${name} not done after ${stepTimeoutMs / 1000} s`)),
      stepTimeoutMs,
    );
  });
  try {
    return await Promise.race([work(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const seconds = (fromMs: number, toMs = performance.now()) => (toMs - fromMs) / 1000;
const rounded = (value: number, digits = 3) => Number(value.toFixed(digits));

/** Polls `check` every `everyMs` until it holds (bounded by the step's timeout). */
async function until(check: () => Promise<boolean> | boolean, everyMs = 250): Promise<void> {
  while (!(await check())) await sleep(everyMs);
}

/** Creates an object; retried on what a busy API server answers (429, 5xx, a reset), never on a refusal. */
async function create(rest: RestClient, creation: Creation): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await rest.request(
        "POST",
        resourcePath(creation.type, { namespace: creation.object.metadata?.namespace }),
        {
          body: creation.object,
        },
      );
      return;
    } catch (error) {
      const status = (error as { status?: number }).status;
      if (status === 409) return; // created by an earlier attempt whose answer was lost
      if ((status !== undefined && status !== 429 && status < 500) || attempt >= 5) throw error;
      await sleep(500 * attempt);
    }
  }
}

/** Sends `items` at a steady `perSecond` (item i not before i/perSecond s), at most `width` in flight. */
async function paced<T>(items: T[], rate: number, width: number, work: (item: T) => Promise<void>) {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next++;
        const wait = started + dueAtMs(index, rate) - performance.now();
        if (wait > 0) await sleep(wait);
        await work(items[index] as T);
      }
    }),
  );
}

const namespaceType: ResourceType = {
  group: "",
  version: "v1",
  kind: "Namespace",
  plural: "namespaces",
  namespaced: false,
};
const namespaceName = (index: number) => `team-${String(index).padStart(4, "0")}`;

/** Samples a subject's request counter four times a second (the peak is over spans of a second at least). */
function requestSampler(subject: Subject) {
  const samples: CounterSample[] = [];
  let stopped = false;
  const sample = async () => {
    const text = await scrape(subject);
    if (text) samples.push({ at: performance.now(), total: progressOf(text).requests });
  };
  const loop = (async () => {
    while (!stopped) {
      await sample();
      await sleep(250);
    }
  })();
  return {
    /** The peak rate, with a last sample taken now (what was sent since the previous one counts). */
    stop: async () => {
      stopped = true;
      await loop;
      await sample();
      return peakRate(samples, 1_000);
    },
  };
}

/**
 * From the subject's start: until it is ready (Slipway: caches synced), has reconciled at least
 * `objects` times and has nothing queued or in progress; its seconds, writes and reads meanwhile.
 */
async function converged(subject: Subject, startedAt: number, objects: number) {
  let last = progressOf("");
  let readyAt: number | undefined;
  await until(async () => {
    subject.assertRunning();
    if (!(await isReady(subject))) return false;
    readyAt ??= performance.now();
    last = progressOf(await scrape(subject));
    return last.reconciles >= objects && last.depth === 0 && last.active === 0;
  });
  return {
    seconds: seconds(startedAt),
    readySeconds: seconds(startedAt, readyAt),
    writes: last.writes,
    reads: last.requests - last.writes,
  };
}

/** Until the subject has been quiet (nothing queued or in progress) for three seconds in a row. */
async function quiet(subject: Subject) {
  let calm = 0;
  await until(async () => {
    subject.assertRunning();
    const now = progressOf(await scrape(subject));
    calm = now.depth === 0 && now.active === 0 ? calm + 1 : 0;
    return calm >= 3;
  }, 1_000);
}

/** Nothing changing for `idleSeconds`: the subject's writes and reads per minute, its RSS at the end. */
async function idle(subject: Subject) {
  await quiet(subject);
  const before = progressOf(await scrape(subject));
  await sleep(idleSeconds * 1000);
  const after = progressOf(await scrape(subject));
  const perMinute = (n: number) => rounded(n / (idleSeconds / 60), 1);
  return {
    writesPerMinute: perMinute(after.writes - before.writes),
    readsPerMinute: perMinute(after.requests - after.writes - (before.requests - before.writes)),
    rssMb: rounded(await residentMb(subject.pid), 1),
  };
}

/** The `index`th new object of a subject: a Run or an ImageBuild (alternating) in a namespace spread over all. */
function newObject(subject: string, what: string, index: number, firstVersion: number): Creation {
  const namespace = namespaceName((index * 7919) % namespaceCount);
  const labels = { [probeLabel]: subject };
  const name = `${what}-${subject}-${index}`;
  return index % 2 === 0
    ? { type: types.run, object: runObject(namespace, name, index % issueShape.pipelines, labels) }
    : {
        type: imageBuildType,
        object: imageBuildObject(namespace, name, imageVersion(firstVersion + index), labels),
      };
}

const waitFor = (tracker: StatusTracker, creation: Creation) =>
  tracker.firstStatus(
    creation.type,
    creation.object.metadata?.namespace ?? "",
    creation.object.metadata?.name ?? "",
  );

/** One at a time: create → the first status the bench's watch sees, in seconds. */
async function probeLatencies(rest: RestClient, tracker: StatusTracker, subject: string) {
  const latencies: number[] = [];
  for (let i = 0; i < probeCount; i++) {
    const creation = newObject(subject, "probe", i, issueShape.builds);
    const seen = waitFor(tracker, creation);
    const started = performance.now();
    await create(rest, creation);
    latencies.push(seconds(started, await seen));
  }
  return { p50: rounded(percentile(latencies, 50)), p99: rounded(percentile(latencies, 99)) };
}

/** `burstCount` new objects at once (16 in flight): first create → last first status, in seconds. */
async function burst(rest: RestClient, tracker: StatusTracker, subject: string) {
  const creations = Array.from({ length: burstCount }, (_, i) =>
    newObject(subject, "burst", i, issueShape.builds + probeCount),
  );
  const seen = creations.map((creation) => waitFor(tracker, creation));
  const started = performance.now();
  await pool(creations, 16, (creation) => create(rest, creation));
  const last = Math.max(...(await Promise.all(seen)));
  return seconds(started, last);
}

/** The registry's one repository, tagged with every version the bench's ImageBuilds name (setup, untimed). */
async function images(registry: RunningServer) {
  const repository = `${imageRepository.project}-${imageRepository.name}`;
  await pushImage(registry.address, repository, imageVersion(0));
  const base = `http://${registry.address}/v2/${repository}/manifests`;
  const mediaType = "application/vnd.oci.image.manifest.v1+json";
  const manifest = await (
    await fetch(`${base}/${imageVersion(0)}`, { headers: { accept: mediaType } })
  ).text();
  const versions = Array.from({ length: issueShape.builds + probeCount + burstCount }, (_, i) =>
    imageVersion(i),
  );
  await pool(versions.slice(1), 8, async (version) => {
    const put = await fetch(`${base}/${version}`, {
      method: "PUT",
      headers: { "content-type": mediaType },
      body: manifest,
    });
    if (put.status !== 201) throw new Error(`PUT ${base}/${version}: ${put.status}`);
  });
}

/** The operator's builds configuration: the loopback registry, images named `{registry}/{project}-{name}:{version}`. */
async function buildsConfig(dir: string, registry: RunningServer): Promise<string> {
  const file = join(dir, "builds.json");
  await writeFile(
    file,
    JSON.stringify({
      registry: { url: registry.address, insecure: true },
      // never reached on the reuse path (the image exists); loopback, in case
      storage: { type: "s3", s3: { endpoint: "http://127.0.0.1:9", forcePathStyle: true } },
      naming: { image: "{registry}/{project}-{name}:{version}" },
      tenancy: { repositoryPrefix: "" },
    }),
  );
  return file;
}

export default async function bench(): Promise<BenchFigures> {
  const peerBinary = await goPeer("controller-runtime");
  const plane = await step("a private control plane", () => benchControlPlane("scale", 1));
  const registry = await startRegistry();
  const dir = await mkdtemp(join(tmpdir(), "slipway-bench-scale-"));
  const rest = new RestClient(plane.kubeConfig, { userAgent: "slipway-bench" });
  const api = new Api(plane.kubeConfig);
  const running: Subject[] = [];
  let tracker: StatusTracker | undefined;
  try {
    await step("CRDs and images", async () => {
      await applyCrds(plane.kubeconfig, allKinds, "slipway-bench");
      await installArgoCrds(api);
      await images(registry);
    });
    const env = {
      SLIPWAY_BUILDS_CONFIG: await buildsConfig(dir, registry),
      SLIPWAY_OUTBOUND_ALLOW: "127.0.0.1",
      // no Argo controller runs here (kwok); declared served from elsewhere, the Providers are Ready
      SLIPWAY_ARGO_NAMESPACES: "*",
      // no client-side rate limit, as the peer's (QPS -1): the bench compares the work, not the
      // limits (at the defaults, 20/s and 30, Slipway's two writes per Run bound it to 10 Runs/s)
      SLIPWAY_KUBE_API_QPS: "1000000",
      SLIPWAY_KUBE_API_BURST: "1000000",
    };
    const watching = new StatusTracker(rest, scaleTypes);
    tracker = watching;

    // Slipway
    let operator = await startOperator(plane.kubeconfig, env);
    running.push(operator);
    let sampler = requestSampler(operator);
    const peaks: number[] = [];
    await step("slipway: ready", () => until(() => isReady(operator)));
    const namespaces = Array.from({ length: namespaceCount }, (_, i) => namespaceName(i));
    const creations = namespaces.flatMap((namespace) => namespaceObjects(namespace, issueShape));
    const objects = creations.length;
    const loadStarted = performance.now();
    await step(`load: ${namespaceCount} namespaces, ${objects} objects at ${perSecond}/s`, async () => {
      await pool(namespaces, 8, (name) =>
        create(rest, {
          type: namespaceType,
          object: { apiVersion: "v1", kind: "Namespace", metadata: { name } },
        }),
      );
      await paced(creations, perSecond, 16, (creation) => create(rest, creation));
    });
    const loadSeconds = seconds(loadStarted);
    await step("load: every status current", () =>
      until(() => {
        const counts = watching.counts();
        return counts.current >= objects;
      }, 500),
    );
    const loadConvergeSeconds = seconds(loadStarted);
    const slipwayIdle = await step(`slipway: idle ${idleSeconds} s`, () => idle(operator));
    const latency = await step(`slipway: ${probeCount} new objects one at a time`, () =>
      probeLatencies(rest, watching, "slipway"),
    );
    const burstSeconds = await step(`slipway: ${burstCount} new objects at once`, () =>
      burst(rest, watching, "slipway"),
    );
    const cached = watching.counts().objects;
    await step("slipway: SIGKILL", () => operator.kill());
    peaks.push(await sampler.stop());
    const restartStarted = performance.now();
    operator = await startOperator(plane.kubeconfig, env);
    running.push(operator);
    sampler = requestSampler(operator);
    const restart = await step("slipway: restarted, until converged", () =>
      converged(operator, restartStarted, cached),
    );
    peaks.push(await sampler.stop());
    await step("slipway: stop", () => operator.stop());

    // the controller-runtime peer
    const peerStarted = performance.now();
    const peer = await startPeer(peerBinary, plane.kubeconfig, registry.address, concurrency);
    running.push(peer);
    const peerSampler = requestSampler(peer);
    const peerStart = await step("peer: started, until converged", () =>
      converged(peer, peerStarted, cached),
    );
    const peerIdle = await step(`peer: idle ${idleSeconds} s`, () => idle(peer));
    const peerLatency = await step(`peer: ${probeCount} new objects one at a time`, () =>
      probeLatencies(rest, watching, "peer"),
    );
    const peerBurstSeconds = await step(`peer: ${burstCount} new objects at once`, () =>
      burst(rest, watching, "peer"),
    );
    const peerPeak = await peerSampler.stop();
    const peerFigures = JSON.parse((await peer.stop()) || "{}") as { writes?: number };

    return {
      seconds: rounded(burstSeconds),
      floor_seconds: rounded(peerBurstSeconds),
      namespaces: namespaceCount,
      objects,
      objects_cached: cached,
      new_object_p50_seconds: latency.p50,
      new_object_p99_seconds: latency.p99,
      peer_new_object_p50_seconds: peerLatency.p50,
      peer_new_object_p99_seconds: peerLatency.p99,
      rss_mb: slipwayIdle.rssMb,
      peer_rss_mb: peerIdle.rssMb,
      restart_converge_seconds: rounded(restart.seconds),
      restart_ready_seconds: rounded(restart.readySeconds),
      restart_writes: restart.writes,
      restart_reads: restart.reads,
      peer_start_converge_seconds: rounded(peerStart.seconds),
      peer_start_writes: peerStart.writes,
      peer_start_reads: peerStart.reads,
      idle_writes_per_minute: slipwayIdle.writesPerMinute,
      idle_reads_per_minute: slipwayIdle.readsPerMinute,
      peer_idle_writes_per_minute: peerIdle.writesPerMinute,
      peer_idle_reads_per_minute: peerIdle.readsPerMinute,
      api_requests_per_second_peak: rounded(Math.max(...peaks), 1),
      peer_api_requests_per_second_peak: rounded(peerPeak, 1),
      load_seconds: rounded(loadSeconds, 1),
      load_converge_seconds: rounded(loadConvergeSeconds, 1),
      load_rate_per_second: perSecond,
      probes: probeCount,
      burst_objects: burstCount,
      burst_objects_per_second: rounded(burstCount / burstSeconds, 1),
      peer_burst_objects_per_second: rounded(burstCount / peerBurstSeconds, 1),
      peer_writes: peerFigures.writes ?? null,
      peer_workers_per_kind: concurrency,
      peer: "controller-runtime v0.25.2",
    };
  } finally {
    for (const subject of running) await subject.kill().catch(() => {});
    await tracker?.stop();
    rest.close();
    api.close();
    await registry.stop();
    await rm(dir, { recursive: true, force: true });
    await plane.stop();
  }
}
