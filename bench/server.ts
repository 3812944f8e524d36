/**
 * `slipway server` over the raw Kubernetes API, on a private control plane (or the one
 * SLIPWAY_BENCH_KUBECONFIG names). The server runs as a deployment runs it: its own process
 * (bench/server/child.ts, buildServer on loopback), so the bench's clients do not share its event loop
 * or count against it; the bench talks to it with a keep-alive undici pool of `concurrency`
 * connections, a client no dearer than the floor's.
 * - seconds: 200 Platform status writes, one after another, each until the server's event stream
 *   (GET /api/v1/platform/events, as a user with a bearer token) delivers it; floor_seconds: the same
 *   writes seen by a plain watch on the same Platform, in the same run (both follow every write);
 * - get_seconds / get_floor_seconds: 500 GET /api/v1/platform (TokenReview-authenticated, as the
 *   user) vs 500 plain reads of the Platform with the same client (`userKubeConfig`, which keeps one
 *   connection pool, as the server's callers do), 8 at a time;
 * - list_seconds / list_floor_seconds: 500 GET of a 200-item ImageBuild list through the server
 *   (GET /api/v1/namespaces/:namespace/imagebuilds, as the user) vs 500 plain lists as the same user;
 * - runs_page_seconds / runs_page_floor_seconds: with 10,000 Runs in the namespace, 500 GET of their
 *   first page as the UI asks for it (GET /api/v1/namespaces/:namespace/runs?limit=100) vs 500 plain
 *   paginated lists as the same user with the same limit;
 * - ui_first_page_seconds: then, in headless Chromium signed in as the user, from opening the Runs
 *   page of that namespace to its first page of 100 rows (the built UI, served by the server child).
 * The reads of each figure are interleaved in 5 rounds (server, floor, and a baseline server when
 * SLIPWAY_BENCH_SERVER_BASELINE names one, in rotating order), so load drifting during a phase weighs
 * on every subject alike. Per read (robust to the shared machine's load): `*_overhead_ms`, the latency the server adds
 * ((seconds - floor_seconds) / reads × concurrency); `*_server_cpu_ms`, the server process's CPU;
 * `*_client_cpu_ms` and `*_floor_client_cpu_ms`, the bench process's CPU in each phase (the floor's
 * is what one direct read costs a caller, which the server pays again upstream). The floor reads with
 * the Kubernetes library's client (what a caller of the API server uses); `*_lean_floor_seconds` and
 * `*_lean_ratio` are the same reads with the lean client the server reads with (src/kube/rest.ts).
 */
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  RbacAuthorizationV1Api,
  setHeaderOptions,
  Watch,
} from "@kubernetes/client-node";
import { Agent, request } from "undici";
import { ImageBuildKind } from "../src/apis/builds/imagebuild.ts";
import { resourceTypeOf } from "../src/apis/kind.ts";
import { PipelineKind, RunKind } from "../src/apis/pipelines/index.ts";
import { PlatformKind } from "../src/apis/platform/platform.ts";
import { resourcePath } from "../src/kube/keys.ts";
import { RestClient } from "../src/kube/rest.ts";
import { applyCrds } from "../test/support/fakes/apply-crds.ts";
import { userKubeConfig } from "../test/support/fakes/user-kubeconfig.ts";
import { builtUi, runsFirstPageSeconds } from "./server/ui-page.ts";
import { benchControlPlane, pool, sleep } from "./support.ts";

const writes = 200;
const reads = 500;
const listedBuilds = 200;
const listedRuns = Number(process.env.SLIPWAY_BENCH_SERVER_RUNS ?? 10_000);
/** The UI's page (web/src/api.ts listPageSize). */
const runsPage = 100;
const concurrency = 8;
/** Reads per subject are interleaved in this many rounds (readTimes). */
const rounds = 5;

/** Resolves when `accept` holds for a value pushed to the waiter list. */
class Arrivals {
  readonly #waiting = new Map<string, () => void>();
  readonly #seen = new Set<string>();
  arrived(message: string) {
    this.#seen.add(message);
    this.#waiting.get(message)?.();
  }
  wait(message: string): Promise<void> {
    if (this.#seen.has(message)) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.set(message, resolve));
  }
}

/** A ServiceAccount `user` that may get, list and watch Platforms in `namespace`, and its token. */
async function userToken(admin: KubeConfig, namespace: string): Promise<string> {
  const core = admin.makeApiClient(CoreV1Api);
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: "user" } } });
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace,
    body: {
      metadata: { name: "user" },
      rules: [
        {
          apiGroups: [PlatformKind.group],
          resources: [PlatformKind.plural],
          verbs: ["get", "list", "watch"],
        },
        { apiGroups: [ImageBuildKind.group], resources: [ImageBuildKind.plural], verbs: ["list"] },
        { apiGroups: [RunKind.group], resources: [RunKind.plural], verbs: ["list", "watch"] },
        { apiGroups: [PipelineKind.group], resources: [PipelineKind.plural], verbs: ["list"] },
      ],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name: "user" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "user" },
      subjects: [{ kind: "ServiceAccount", name: "user", namespace }],
    },
  });
  return (
    (
      await core.createNamespacedServiceAccountToken({
        namespace,
        name: "user",
        body: { spec: { audiences: [] } },
      })
    ).status?.token ?? ""
  );
}

async function platformReady(kubeconfig: string) {
  const admin = new KubeConfig();
  admin.loadFromFile(kubeconfig);
  const namespace = `bench-server-${randomBytes(3).toString("hex")}`;
  await admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
  await applyCrds(kubeconfig, [PlatformKind, ImageBuildKind, RunKind], "bench");
  const coordinates = {
    group: PlatformKind.group,
    version: PlatformKind.version,
    plural: PlatformKind.plural,
    namespace,
  };
  const objects = admin.makeApiClient(CustomObjectsApi);
  for (let attempt = 0; ; attempt++) {
    try {
      await objects.createNamespacedCustomObject({
        ...coordinates,
        body: {
          apiVersion: PlatformKind.apiVersion,
          kind: PlatformKind.kind,
          metadata: { name: "slipway" },
          spec: {},
        },
      });
      break;
    } catch (error) {
      if (attempt > 50) throw error; // the CRD is not served yet
      await sleep(200);
    }
  }
  const token = await userToken(admin, namespace);
  return { admin, namespace, coordinates, objects, token };
}

/** Reads the server's event stream, telling `arrivals` the message of every `phase` event. */
async function followEvents(
  url: string,
  token: string,
  signal: AbortSignal,
  arrivals: Arrivals,
): Promise<void> {
  const stream = await fetch(url, {
    headers: { authorization: `Bearer ${token}` },
    signal,
  });
  void (async () => {
    let buffer = "";
    for await (const chunk of stream.body ?? []) {
      buffer += Buffer.from(chunk).toString();
      const last = buffer.lastIndexOf("\n\n");
      const end = last < 0 ? 0 : last + 2; // the frames complete so far
      for (const match of buffer.slice(0, end).matchAll(/^event: phase\ndata: (.*)$/gm)) {
        const message = (JSON.parse(match[1] as string) as { message?: string }).message;
        if (message) arrivals.arrived(message);
      }
      buffer = buffer.slice(end);
    }
  })().catch(() => {});
}

/** The server in its own process (bench/server/child.ts): its address, its CPU so far, and how to stop it. */
interface ServerProcess {
  url: string;
  cpuMs: () => Promise<number>;
  stop: () => void;
}

/**
 * SLIPWAY_BENCH_SERVER_CHILD names another checkout's bench/server/child.ts (to compare its server
 * with this one's, same client and floor); SLIPWAY_BENCH_SERVER_BASELINE names one to run beside
 * this one in the same run (its read figures as `baseline_*`); SLIPWAY_BENCH_SERVER_ARGS gives their
 * node flags (--cpu-prof).
 */
function startServer(
  kubeconfig: string,
  namespace: string,
  script = process.env.SLIPWAY_BENCH_SERVER_CHILD ??
    fileURLToPath(new URL("./server/child.ts", import.meta.url)),
  webRoot?: string,
): Promise<ServerProcess> {
  const child = fork(script, [kubeconfig, namespace, ...(webRoot ? [webRoot] : [])], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    execArgv: (process.env.SLIPWAY_BENCH_SERVER_ARGS ?? "").split(" ").filter(Boolean),
  });
  // A server that died mid-run fails the bench by name (an unanswered question would hang it).
  const cpuMs = () =>
    new Promise<number>((resolve, reject) => {
      if (child.exitCode !== null || child.signalCode !== null)
        return reject(new Error(`the server process ended (${child.exitCode ?? child.signalCode}) mid-run`));
      child.once("message", (usage: NodeJS.CpuUsage) => resolve((usage.user + usage.system) / 1000));
      child.send("cpu");
    });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) =>
      reject(new Error(`the server process exited with ${code} before listening`)),
    );
    child.once("message", (message: { url: string }) =>
      resolve({ url: message.url, cpuMs, stop: () => child.disconnect() }),
    );
  });
}

/** How long `work` took, and the CPU the server process and this (the client's) process spent on it. */
async function timed(server: ServerProcess, work: () => Promise<void>) {
  const serverBefore = await server.cpuMs();
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  const client = process.cpuUsage(clientBefore);
  return {
    seconds,
    serverCpuMs: (await server.cpuMs()) - serverBefore,
    clientCpuMs: (client.user + client.system) / 1000,
  };
}

/** What one subject's reads cost: wall seconds, the measured server's CPU and this process's CPU. */
interface ReadCost {
  seconds: number;
  serverCpuMs: number;
  clientCpuMs: number;
}

/**
 * `reads` GETs of `path` through each server, `reads` of `plain` and `reads` of `lean` (the same read
 * as the same user with the library's client and with the lean one of src/kube/rest.ts), 8 at a time,
 * interleaved in `rounds` rounds (each subject a share of the reads per round, the order rotating),
 * so the shared machine's load drifting during the phase weighs on every subject alike.
 */
async function readTimes(
  servers: ServerProcess[],
  path: string,
  token: string,
  plain: () => Promise<unknown>,
  lean: () => Promise<unknown>,
): Promise<{ via: ReadCost[]; floor: ReadCost; leanFloor: ReadCost }> {
  const headers = { authorization: `Bearer ${token}` };
  const pools = servers.map(() => new Agent({ connections: concurrency }));
  const throughServer = (index: number) => async () => {
    const server = servers[index] as ServerProcess;
    const response = await request(`${server.url}/api/v1${path}`, {
      headers,
      dispatcher: pools[index] as Agent,
    });
    if (response.statusCode !== 200) throw new Error(`GET ${path} answered ${response.statusCode}`);
    await response.body.arrayBuffer();
  };
  const subjects = [...servers.map((_, index) => throughServer(index)), plain, lean];
  const costs = subjects.map(() => ({ seconds: 0, serverCpuMs: 0, clientCpuMs: 0 }));
  const perRound = Array.from({ length: reads / rounds }, (_, i) => i);
  for (let round = 0; round < rounds; round++) {
    for (let turn = 0; turn < subjects.length; turn++) {
      const index = (round + turn) % subjects.length;
      const measured = servers[Math.min(index, servers.length - 1)] as ServerProcess;
      const cost = await timed(measured, () =>
        pool(perRound, concurrency, subjects[index] as () => Promise<unknown>),
      );
      const total = costs[index] as ReadCost;
      total.seconds += cost.seconds;
      total.serverCpuMs += cost.serverCpuMs;
      total.clientCpuMs += cost.clientCpuMs;
    }
  }
  await Promise.all(pools.map((connections) => connections.close()));
  return {
    via: costs.slice(0, servers.length),
    floor: costs[servers.length] as ReadCost,
    leanFloor: costs[servers.length + 1] as ReadCost,
  };
}

/**
 * One read figure's JSON fields, `prefix`ed: times, ratio and the per-read costs; with a baseline
 * server (SLIPWAY_BENCH_SERVER_BASELINE), its time, ratio and costs as `baseline_<prefix>_…`.
 */
function readFigures(prefix: string, times: Awaited<ReturnType<typeof readTimes>>) {
  const { floor, leanFloor } = times;
  const [via, baseline] = times.via as [ReadCost, ReadCost | undefined];
  const perRead = (ms: number) => Number((ms / reads).toFixed(3));
  const baselineFigures = baseline
    ? {
        [`baseline_${prefix}_seconds`]: Number(baseline.seconds.toFixed(3)),
        [`baseline_${prefix}_ratio`]: Number((baseline.seconds / floor.seconds).toFixed(3)),
        [`baseline_${prefix}_overhead_ms`]: perRead((baseline.seconds - floor.seconds) * 1000 * concurrency),
        [`baseline_${prefix}_server_cpu_ms`]: perRead(baseline.serverCpuMs),
      }
    : {};
  return {
    ...baselineFigures,
    [`${prefix}_seconds`]: Number(via.seconds.toFixed(3)),
    [`${prefix}_floor_seconds`]: Number(floor.seconds.toFixed(3)),
    [`${prefix}_ratio`]: Number((via.seconds / floor.seconds).toFixed(3)),
    [`${prefix}_overhead_ms`]: perRead((via.seconds - floor.seconds) * 1000 * concurrency),
    [`${prefix}_server_cpu_ms`]: perRead(via.serverCpuMs),
    [`${prefix}_client_cpu_ms`]: perRead(via.clientCpuMs),
    [`${prefix}_floor_client_cpu_ms`]: perRead(floor.clientCpuMs),
    [`${prefix}_lean_floor_seconds`]: Number(leanFloor.seconds.toFixed(3)),
    [`${prefix}_lean_ratio`]: Number((via.seconds / leanFloor.seconds).toFixed(3)),
    [`${prefix}_lean_floor_client_cpu_ms`]: perRead(leanFloor.clientCpuMs),
  };
}

/** `listedBuilds` ImageBuilds in `namespace` (admin), for the list figure. */
async function createBuilds(objects: CustomObjectsApi, namespace: string): Promise<void> {
  const builds = Array.from({ length: listedBuilds }, (_, i) => i);
  await pool(builds, concurrency, (i) =>
    objects.createNamespacedCustomObject({
      group: ImageBuildKind.group,
      version: ImageBuildKind.version,
      plural: ImageBuildKind.plural,
      namespace,
      body: {
        apiVersion: ImageBuildKind.apiVersion,
        kind: ImageBuildKind.kind,
        metadata: { name: `build-${i}` },
        spec: {
          project: "bench",
          name: `image-${i}`,
          version: "v1",
          artifactUri: `s3://artifacts/bench/${i}`,
        },
      },
    }),
  );
}

/** `listedRuns` Runs in `namespace` (admin), 32 at a time: only the API server's schema checks them (no operator). */
async function createRuns(objects: CustomObjectsApi, namespace: string): Promise<void> {
  const runs = Array.from({ length: listedRuns }, (_, i) => i);
  await pool(runs, 32, (i) =>
    objects.createNamespacedCustomObject({
      group: RunKind.group,
      version: RunKind.version,
      plural: RunKind.plural,
      namespace,
      body: {
        apiVersion: RunKind.apiVersion,
        kind: RunKind.kind,
        metadata: { name: `run-${String(i).padStart(5, "0")}` },
        spec: { provider: "argo", pipeline: "train", parameters: [{ name: "epochs", value: String(i) }] },
      },
    }),
  );
}

/** The read figures: GET /platform and a 200-item ImageBuild list through the server vs plain, as the user. */
async function timeReads(
  servers: ServerProcess[],
  admin: KubeConfig,
  token: string,
  coordinates: { group: string; version: string; plural: string; namespace: string },
  objects: CustomObjectsApi,
) {
  const { namespace } = coordinates;
  const user = userKubeConfig(admin, token).makeApiClient(CustomObjectsApi);
  const lean = new RestClient(userKubeConfig(admin, token));
  const get = await readTimes(
    servers,
    "/platform",
    token,
    () => user.getNamespacedCustomObject({ ...coordinates, name: "slipway" }),
    () => lean.request("GET", resourcePath(resourceTypeOf(PlatformKind), { namespace, name: "slipway" })),
  );
  await createBuilds(objects, namespace);
  const buildCoordinates = {
    group: ImageBuildKind.group,
    version: ImageBuildKind.version,
    plural: ImageBuildKind.plural,
  };
  const list = await readTimes(
    servers,
    `/namespaces/${namespace}/imagebuilds`,
    token,
    () => user.listNamespacedCustomObject({ ...buildCoordinates, namespace }),
    () => lean.request("GET", resourcePath(resourceTypeOf(ImageBuildKind), { namespace })),
  );
  await createRuns(objects, namespace);
  const runCoordinates = { group: RunKind.group, version: RunKind.version, plural: RunKind.plural };
  const runsFirstPage = await readTimes(
    servers,
    `/namespaces/${namespace}/runs?limit=${runsPage}`,
    token,
    () => user.listNamespacedCustomObject({ ...runCoordinates, namespace, limit: runsPage }),
    () =>
      lean.request("GET", resourcePath(resourceTypeOf(RunKind), { namespace }), {
        query: { limit: runsPage },
      }),
  );
  lean.close();
  return {
    ...readFigures("get", get),
    listed_builds: listedBuilds,
    ...readFigures("list", list),
    listed_runs: listedRuns,
    runs_page_size: runsPage,
    ...readFigures("runs_page", runsFirstPage),
  };
}

/** Writes the Platform's status `writes` times, each until both followers saw it; their total waits. */
async function timeWrites(
  objects: CustomObjectsApi,
  coordinates: { group: string; version: string; plural: string; namespace: string },
  viaServer: Arrivals,
  viaWatch: Arrivals,
): Promise<{ serverMs: number; watchMs: number }> {
  let serverMs = 0;
  let watchMs = 0;
  for (let i = 0; i < writes; i++) {
    const message = `write ${i}`;
    const started = performance.now();
    const server = viaServer.wait(message).then(() => performance.now() - started);
    const plain = viaWatch.wait(message).then(() => performance.now() - started);
    await objects.patchNamespacedCustomObjectStatus(
      { ...coordinates, name: "slipway", body: { status: { phase: "Running", message } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    serverMs += await server;
    watchMs += await plain;
  }
  return { serverMs, watchMs };
}

export default async function bench() {
  const plane = await benchControlPlane("server", 1);
  const { admin, namespace, coordinates, objects, token } = await platformReady(plane.kubeconfig);
  const webRoot = await builtUi();
  const server = await startServer(plane.kubeconfig, namespace, undefined, webRoot);
  // another checkout's server, read in the same rounds as this one (to compare commits side by side)
  const baselineScript = process.env.SLIPWAY_BENCH_SERVER_BASELINE;
  const baseline = baselineScript
    ? await startServer(plane.kubeconfig, namespace, baselineScript)
    : undefined;
  const stop = new AbortController();
  try {
    const viaServer = new Arrivals();
    const viaWatch = new Arrivals();
    const watch = await new Watch(admin).watch(
      `/apis/${PlatformKind.group}/${PlatformKind.version}/namespaces/${namespace}/${PlatformKind.plural}`,
      { fieldSelector: "metadata.name=slipway" },
      (_type, object: { status?: { message?: string } }) => {
        if (object.status?.message) viaWatch.arrived(object.status.message);
      },
      () => {},
    );
    await followEvents(`${server.url}/api/v1/platform/events`, token, stop.signal, viaServer);

    const { serverMs, watchMs } = await timeWrites(objects, coordinates, viaServer, viaWatch);
    watch.abort();

    const readFigures = await timeReads(
      baseline ? [server, baseline] : [server],
      admin,
      token,
      coordinates,
      objects,
    );
    // the Runs (created by timeReads) in the UI: sign in, open the Runs page, until its first page shows
    const uiFirstPageSeconds = await runsFirstPageSeconds(server.url, token, namespace, runsPage);
    return {
      seconds: Number((serverMs / 1000).toFixed(3)),
      floor_seconds: Number((watchMs / 1000).toFixed(3)),
      writes,
      event_ms_mean: Number((serverMs / writes).toFixed(2)),
      watch_ms_mean: Number((watchMs / writes).toFixed(2)),
      reads,
      concurrency,
      ...readFigures,
      ui_first_page_seconds: Number(uiFirstPageSeconds.toFixed(3)),
    };
  } finally {
    stop.abort();
    server.stop();
    baseline?.stop();
    await rm(webRoot, { recursive: true, force: true });
    await admin
      .makeApiClient(CoreV1Api)
      .deleteNamespace({ name: namespace })
      .catch(() => {});
    await plane.stop();
  }
}
