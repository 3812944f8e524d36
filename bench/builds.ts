/**
 * `npm run bench -- builds`: 500 ImageBuilds whose images already exist in a real registry.
 * - seconds: a Manager running the ImageBuild controller, started with 500 builds waiting, until all
 *   are Succeeded (reused);
 * - floor_seconds: a plain client doing what cannot be saved — 500 manifest HEADs (basic auth) and
 *   500 status writes (server-side apply) at the controller's concurrency, in the same run;
 * - both are the median of three rounds, each in fresh namespaces, alternating which goes first;
 * - peer_seconds: the controller-runtime peer (bench/peers/controller-runtime, mode `builds`: the same reuse
 *   path, one registry HEAD and one status write per build, at the same concurrency) in a third fresh
 *   namespace of each round, from its manager's start until it wrote every status; ratio_to_peer;
 * - registry_requests_per_build: registry HTTP requests the controller made, per build (target 1);
 * - local_build_seconds: one real build of a small image by the local backend (buildah), from the
 *   ImageBuild's creation to Succeeded: artifact from MinIO, build, push, digest.
 * On a private control plane, or the one SLIPWAY_BENCH_KUBECONFIG names.
 */
import { mkdtemp } from "node:fs/promises";
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
import { type BuildServers, startBuildServers, uploadContext } from "../src/dev/build-server-children.ts";
import { pushImage } from "../src/dev/push-image.ts";
import { resourcePath } from "../src/kube/keys.ts";
import { Manager } from "../src/kube/manager.ts";
import { RestClient } from "../src/kube/rest.ts";
import { goPeer } from "./peers/build.ts";
import type { BenchFigures } from "./run.ts";
import { benchControlPlane, figuresOf, median, pool, sleep } from "./support.ts";

const builds = 500;
/** The bench's registry user (basic auth, as a platform's registry would ask) and its artifact bucket. */
const registryUser = { username: "bench", password: "bench-registry-pass" };
const bucket = "artifacts";
const concurrency = imageBuildController({ config: undefined }).concurrency ?? 4;
const apply = { contentType: "application/apply-patch+yaml", query: { fieldManager: "bench", force: true } };

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

async function createBuild(rest: RestClient, namespace: string, name: string, version: string) {
  await rest.request("POST", resourcePath(types.imageBuild, { namespace }), {
    body: {
      apiVersion: ImageBuildKind.apiVersion,
      kind: ImageBuildKind.kind,
      metadata: { name, namespace },
      spec: spec(version),
    },
  });
}

/** Resolves when `count` builds of the namespace are in `phase`, seen through one watch. */
function waitForPhase(rest: RestClient, namespace: string, phase: string, count: number) {
  const abort = new AbortController();
  const seen = new Set<string>();
  const done = new Promise<void>((resolve, reject) => {
    rest
      .watch(
        resourcePath(types.imageBuild, { namespace }),
        {},
        (event) => {
          const object = event.object as {
            metadata?: { name?: string };
            status?: { phase?: string; message?: string };
          };
          if (object.status?.phase === "Failed")
            reject(new Error(`${object.metadata?.name} failed: ${object.status.message}`));
          if (object.status?.phase === phase && object.metadata?.name) seen.add(object.metadata.name);
          if (seen.size >= count) resolve();
        },
        abort.signal,
      )
      .catch(() => {});
  });
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
    ...(localBuilder ? { localBuilder } : {}),
  });
  const manager = new Manager({
    kubeConfig,
    namespace,
    fieldManager: "slipway-bench",
    log: pino({ level: "silent" }),
  });
  manager.add(spec);
  await manager.start();
  return { manager, metrics: spec.buildMetrics };
}

/** The floor: what any implementation must do per build, by a plain client at the same concurrency. */
async function floorRun(rest: RestClient, servers: BuildServers, floorNs: string, versions: string[]) {
  const basic = `Basic ${Buffer.from(`${registryUser.username}:${registryUser.password}`).toString("base64")}`;
  const floorStarted = performance.now();
  await pool(versions, concurrency, async (version) => {
    const response = await fetch(`http://${servers.registry.address}/v2/bench-model/manifests/${version}`, {
      method: "HEAD",
      headers: { authorization: basic, accept: "application/vnd.oci.image.manifest.v1+json" },
    });
    const digest = response.headers.get("docker-content-digest");
    if (!digest) throw new Error(`floor: no digest for ${version} (${response.status})`);
    const now = new Date().toISOString();
    await rest.request(
      "PATCH",
      resourcePath(types.imageBuild, {
        namespace: floorNs,
        name: `floor-${version}`,
        subresource: "status",
      }),
      {
        ...apply,
        body: {
          apiVersion: ImageBuildKind.apiVersion,
          kind: ImageBuildKind.kind,
          metadata: { name: `floor-${version}`, namespace: floorNs },
          status: {
            phase: "Succeeded",
            image: `${servers.registry.address}/bench-model:${version}`,
            digest,
            reused: true,
            message: "already exists",
            observedGeneration: 1,
            completedAt: now,
            conditions: [
              {
                type: "Succeeded",
                status: "True",
                reason: "Reused",
                message: "already exists",
                observedGeneration: 1,
                lastTransitionTime: now,
              },
            ],
          },
        },
      },
    );
  });
  return (performance.now() - floorStarted) / 1000;
}

/** The controller, started with every build of the namespace waiting, until all are Succeeded. */
async function operatorRun(kubeConfig: KubeConfig, rest: RestClient, namespace: string, config: unknown) {
  const watch = waitForPhase(rest, namespace, "Succeeded", builds);
  const started = performance.now();
  const operator = await runOperator(kubeConfig, namespace, config);
  await watch.done;
  const seconds = (performance.now() - started) / 1000;
  watch.stop();
  await operator.manager.stop();
  const requests = (await operator.metrics.registryRequests.get()).values.reduce(
    (sum, v) => sum + v.value,
    0,
  );
  return { seconds, requests };
}

/** Rounds of floor and operator runs; each figure is the median over the rounds. */
const roundCount = Number(process.env.SLIPWAY_BENCH_ROUNDS ?? 3);

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
  await pool(versions, 8, (version) =>
    pushImage(servers.registry.address, "bench-model", version, registryUser),
  );
  return versions;
}

interface RoundContext {
  kubeConfig: KubeConfig;
  kubeconfig: string;
  rest: RestClient;
  servers: BuildServers;
  config: BenchConfig;
  peer: string;
}

/** The controller-runtime peer on its own namespace's builds: seconds from its manager's start to the last status written. */
async function peerRun(context: RoundContext, namespace: string) {
  const args = [
    context.kubeconfig,
    namespace,
    context.servers.registry.address,
    String(builds),
    String(concurrency),
  ];
  const figures = await figuresOf<{ seconds: number }>(context.peer, ["builds", ...args]);
  return figures.seconds;
}

/** One round in fresh namespaces: the floor, the operator and the peer, in the order the round's parity says. */
async function round(
  index: number,
  context: RoundContext,
  versions: string[],
  suffix: string,
  namespaces: string[],
) {
  const { kubeConfig, rest, servers, config } = context;
  const [operatorNs, floorNs, peerNs] = ["op", "floor", "peer"].map(
    (n) => `bench-builds-${n}-${suffix}-${index}`,
  ) as [string, string, string];
  namespaces.push(operatorNs, floorNs, peerNs);
  for (const ns of [operatorNs, floorNs, peerNs]) await createNamespace(rest, ns, servers);
  await pool(versions, 16, async (version) => {
    await createBuild(rest, operatorNs, `op-${version}`, version);
    await createBuild(rest, floorNs, `floor-${version}`, version);
    await createBuild(rest, peerNs, `peer-${version}`, version);
  });
  const floor = () => floorRun(rest, servers, floorNs, versions);
  const operator = () => operatorRun(kubeConfig, rest, operatorNs, config);
  const peer = () => peerRun(context, peerNs);
  // alternate which goes first, so that neither always meets a fresher control plane
  if (index % 2 === 0) {
    const floorSeconds = await floor();
    const measured = await operator();
    return { floor: floorSeconds, ...measured, peer: await peer() };
  }
  const peerSeconds = await peer();
  const measured = await operator();
  return { floor: await floor(), ...measured, peer: peerSeconds };
}

/** One real local build: artifact in MinIO → buildah → push → digest, from creation to Succeeded. */
async function localBuild(
  kubeConfig: KubeConfig,
  rest: RestClient,
  servers: BuildServers,
  localNs: string,
  config: BenchConfig,
  suffix: string,
) {
  await uploadContext(servers, "local/model", {
    Dockerfile: "FROM scratch\nCOPY model.txt /model.txt\n",
    "model.txt": "weights",
  });
  const builder = new LocalBuilder(join(await mkdtemp(join(tmpdir(), "slipway-bench-buildah-")), "storage"));
  const local = await runOperator(kubeConfig, localNs, { ...config, backend: "local" }, builder);
  const localWatch = waitForPhase(rest, localNs, "Succeeded", 1);
  const started = performance.now();
  await rest.request("POST", resourcePath(types.imageBuild, { namespace: localNs }), {
    body: {
      apiVersion: ImageBuildKind.apiVersion,
      kind: ImageBuildKind.kind,
      metadata: { name: "local", namespace: localNs },
      spec: { ...spec(`local-${suffix}`), artifactUri: `s3://${bucket}/local/model` },
    },
  });
  await localWatch.done;
  const seconds = (performance.now() - started) / 1000;
  localWatch.stop();
  await local.manager.stop();
  return seconds;
}

export default async function bench(): Promise<BenchFigures> {
  const plane = await benchControlPlane("builds", 1);
  const { kubeConfig } = plane;
  const rest = new RestClient(kubeConfig);
  const servers = await startBuildServers({ [registryUser.username]: registryUser.password }, bucket);
  const suffix = Date.now().toString(36);
  const localNs = `bench-builds-local-${suffix}`;
  const namespaces = [localNs];
  try {
    const versions = await prepare(kubeConfig, rest, servers, localNs);
    const config = operatorConfig(servers);
    const context = {
      kubeConfig,
      kubeconfig: plane.kubeconfig,
      rest,
      servers,
      config,
      peer: await goPeer("controller-runtime"),
    };
    const rounds: { seconds: number; floor: number; requests: number; peer: number }[] = [];
    for (let index = 0; index < roundCount; index++)
      rounds.push(await round(index, context, versions, suffix, namespaces));
    const requests = median(rounds.map((r) => r.requests));
    const localSeconds = await localBuild(kubeConfig, rest, servers, localNs, config, suffix);
    const seconds = median(rounds.map((r) => r.seconds));
    const peerSeconds = median(rounds.map((r) => r.peer));
    return {
      seconds: Number(seconds.toFixed(3)),
      floor_seconds: Number(median(rounds.map((r) => r.floor)).toFixed(3)),
      builds,
      concurrency,
      registry_requests_per_build: Number((requests / builds).toFixed(3)),
      peer: "controller-runtime v0.25.2",
      peer_seconds: Number(peerSeconds.toFixed(3)),
      peer_seconds_each: rounds.map((r) => Number(r.peer.toFixed(3))),
      ratio_to_peer: Number((seconds / peerSeconds).toFixed(3)),
      local_build_seconds: Number(localSeconds.toFixed(3)),
    };
  } finally {
    for (const ns of namespaces) await rest.request("DELETE", `/api/v1/namespaces/${ns}`).catch(() => {});
    await servers.stop();
    await plane.stop();
  }
}
