import { chmod, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeConfig, type V1Node, type V1NodeList } from "@kubernetes/client-node";
import { nodeType } from "../kube/core-types.ts";
import { resourcePath } from "../kube/keys.ts";
import { type Binaries, ensureBinaries } from "./binaries.ts";
import {
  componentSpecs,
  etcdClientUrl,
  fakeNodeAnnotation,
  type Layout,
  type Ports,
  portNames,
} from "./components.ts";
import { describeObject } from "./describe-object.ts";
import { ignoreConflict, withDevClient } from "./dev-client.ts";
import { type Probe, probeApiserver, probeEtcd, waitFor } from "./health.ts";
import { writeKubeconfig } from "./kubeconfig.ts";
import { createPki } from "./pki.ts";
import { stopPlatformServices } from "./platform-services.ts";
import { freePorts } from "./ports.ts";
import { isRunning, type ProcessRecord, stopProcesses } from "./processes.ts";
import { realNodeApiserverArgs } from "./real-node/config.ts";
import { decideRealNode, startRealNode, stopRealNode } from "./real-node/node.ts";
import { type DevState, readState, writeState } from "./state.ts";
import { ensureProcess } from "./supervise.ts";
import { pinnedVersions } from "./versions.ts";

export interface UpOptions {
  dir: string;
  nodes?: number;
  timeoutMs?: number;
  log?: (line: string) => void;
  /** start the machine's real node too (default: unless SLIPWAY_REAL_NODE=0); decided when the directory is new */
  realNode?: boolean;
  /** called when the control plane (API server and fake nodes) and then the real node are Ready */
  onReady?: (part: "control plane" | "real node") => void;
}

export const fakeNodeName = (index: number) => `kwok-node-${index}`;

/** Whether `up` starts a real node: the option if given, else unless SLIPWAY_REAL_NODE=0. */
export function realNodeWanted(option: boolean | undefined, env = process.env): boolean {
  return option ?? env.SLIPWAY_REAL_NODE !== "0";
}

/**
 * Starts the local control plane, or brings back whichever of its processes died (with their
 * original flags and ports), then waits until the API server is ready and every fake node is Ready;
 * then the same for the real node, if this directory has one. Calling it again on a healthy control
 * plane changes nothing.
 */
export async function up(options: UpOptions): Promise<DevState> {
  const { dir, log = () => {} } = options;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const wanted = realNodeWanted(options.realNode);
  const binaries = await ensureBinaries(log, { realNode: wanted });
  await privateDir(dir);
  const existing = await readState(dir);
  const kubeVersion = pinnedVersions().kube;
  if (existing && existing.kubeVersion !== kubeVersion) {
    throw new Error(
      `the control plane in ${dir} runs Kubernetes ${existing.kubeVersion}, not the pinned ${kubeVersion}: run \`slipway dev down\` first`,
    );
  }
  if (existing && !existing.pki.etcdCaCert) {
    throw new Error(
      `the control plane in ${dir} was made before etcd required client certificates: run \`slipway dev down\` first`,
    );
  }
  let state = existing ?? (await newState(dir, wanted, binaries, log));
  if (state.realNodeSkipped && wanted) log(`real node: not started: ${state.realNodeSkipped}`);
  const layout: Layout = { dir, ports: state.ports, pki: state.pki, kubeconfig: state.kubeconfig, binaries };
  for (const spec of controlPlaneSpecs(layout, state)) {
    state = await ensureProcess(dir, state, spec, {
      log,
      timeoutMs,
      readiness: readinessProbe(state, spec.name),
    });
  }
  await ensureFakeNodes(state.kubeconfig, options.nodes ?? 3);
  await ensureDefaultStorageClass(state.kubeconfig);
  await waitForNodesReady(state.kubeconfig, timeoutMs);
  options.onReady?.("control plane");
  if (state.realNode) {
    state = await startRealNode(dir, state, binaries, { log, timeoutMs });
    options.onReady?.("real node");
  }
  return state;
}

/**
 * The state directory, readable by its owner only (also one made before this rule): it holds the
 * CA's and the admin's private keys, etcd's data and the kubeconfig.
 */
async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}

async function newState(
  dir: string,
  wantRealNode: boolean,
  binaries: Binaries,
  log: (line: string) => void,
): Promise<DevState> {
  const kubeVersion = pinnedVersions().kube;
  await mkdir(join(dir, "logs"), { recursive: true });
  await mkdir(join(dir, "pki"), { recursive: true });
  const allocated = await freePorts(portNames.length);
  const ports = Object.fromEntries(portNames.map((name, i) => [name, allocated[i]])) as unknown as Ports;
  const pki = await createPki(join(dir, "pki"));
  const kubeconfig = join(dir, "kubeconfig");
  await writeKubeconfig(kubeconfig, {
    name: "slipway-dev",
    server: `https://127.0.0.1:${ports.apiserver}`,
    caCertFile: pki.caCert,
    clientCertFile: pki.adminCert,
    clientKeyFile: pki.adminKey,
  });
  const state = await decideRealNode(
    dir,
    { kubeVersion, kubeconfig, ports, pki, processes: [] },
    wantRealNode,
    binaries,
    log,
  );
  await writeState(dir, state);
  return state;
}

/** The control plane's processes; with a real node, the API server also advertises the bridge address and reaches kubelets. */
function controlPlaneSpecs(layout: Layout, state: DevState): Omit<ProcessRecord, "pid">[] {
  return componentSpecs(layout).map((spec) =>
    spec.name === "kube-apiserver" && state.realNode
      ? { ...spec, args: [...spec.args, ...realNodeApiserverArgs(state.pki)] }
      : spec,
  );
}

function readinessProbe(state: DevState, name: string): (() => Promise<Probe>) | undefined {
  if (name === "etcd") return () => probeEtcd(etcdClientUrl(state.ports), state.pki);
  if (name === "kube-apiserver") return () => apiserverProbe(state);
  return undefined;
}

function fakeNode(name: string): V1Node {
  return {
    metadata: {
      name,
      annotations: { [fakeNodeAnnotation]: "fake", "node.alpha.kubernetes.io/ttl": "0" },
      labels: {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "node-role.kubernetes.io/agent": "",
        type: "kwok",
      },
    },
    // Not tainted (kwok's docs taint fake nodes to keep real pods off them): this control plane has
    // only fake nodes, and workloads should schedule without tolerations they would not need on a cluster.
    spec: {},
  };
}

async function ensureFakeNodes(kubeconfig: string, count: number): Promise<void> {
  await withDevClient(kubeconfig, async ({ rest }) => {
    for (let i = 0; i < count; i++)
      await ignoreConflict(rest.request("POST", resourcePath(nodeType), { body: fakeNode(fakeNodeName(i)) }));
  });
}

/** The default StorageClass, provisioned by kwok's volume stages (src/dev/kwok-stages.yaml); it allows expansion. */
export const defaultStorageClass = "standard";

async function ensureDefaultStorageClass(kubeconfig: string): Promise<void> {
  const storageClass = {
    apiVersion: "storage.k8s.io/v1",
    kind: "StorageClass",
    metadata: {
      name: defaultStorageClass,
      annotations: { "storageclass.kubernetes.io/is-default-class": "true" },
    },
    provisioner: "slipway.dev/kwok-volume",
    reclaimPolicy: "Delete",
    volumeBindingMode: "Immediate",
    allowVolumeExpansion: true,
  };
  await withDevClient(kubeconfig, ({ kube }) => ignoreConflict(kube.create(storageClass)));
}

const isReady = (node: V1Node) =>
  node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

async function waitForNodesReady(kubeconfig: string, timeoutMs: number): Promise<void> {
  await withDevClient(kubeconfig, ({ rest }) => {
    const listNodes = async () => (await rest.request<V1NodeList>("GET", resourcePath(nodeType))).items;
    return waitFor(
      "fake nodes",
      async () => {
        const nodes = (await listNodes()).filter(
          (n) => n.metadata?.annotations?.[fakeNodeAnnotation] === "fake",
        );
        const ready = nodes.filter(isReady).length;
        return { ok: nodes.length > 0 && ready === nodes.length, detail: `${ready}/${nodes.length} Ready` };
      },
      {
        timeoutMs,
        intervalMs: 250,
        explain: async () => describeObject((await listNodes()).filter((n) => !isReady(n))),
      },
    );
  });
}

/**
 * Stops exactly the processes `up` recorded (by PID, checked against their command) and removes the
 * state; a real node first, with everything it created (src/dev/real-node/node.ts).
 */
export async function down(dir: string): Promise<{ stopped: string[] }> {
  const services = await stopPlatformServices(dir);
  let state = await readState(dir);
  const runningAtStart = state?.processes.filter(isRunning).map((p) => p.name) ?? [];
  if (state?.realNode) state = await stopRealNode(dir, state, (await apiserverProbe(state)).ok);
  const running = state?.processes.filter(isRunning) ?? [];
  // reverse start order: nodes' agent and clients first, the store last
  await stopProcesses([...running].reverse());
  await rm(dir, { recursive: true, force: true });
  return { stopped: [...services, ...runningAtStart] };
}

const apiserverProbe = (state: DevState) =>
  probeApiserver(`https://127.0.0.1:${state.ports.apiserver}/readyz`, state.pki);

export interface ComponentStatus {
  name: string;
  pid: number;
  running: boolean;
  log: string;
}

export interface DevStatus {
  up: boolean;
  kubeconfig?: string;
  apiserver?: Probe;
  components: ComponentStatus[];
  /** why there is no real node, when there is none */
  realNodeSkipped?: string;
}

/** Which recorded processes are alive and whether the API server answers; `up` is false if anything died. */
export async function status(dir: string): Promise<DevStatus> {
  const state = await readState(dir);
  if (!state) return { up: false, components: [] };
  const components = state.processes.map((p) => ({
    name: p.name,
    pid: p.pid,
    running: isRunning(p),
    log: p.log,
  }));
  const apiserver = await apiserverProbe(state);
  return {
    up: apiserver.ok && components.length > 0 && components.every((c) => c.running),
    kubeconfig: state.kubeconfig,
    apiserver,
    components,
    ...(state.realNodeSkipped ? { realNodeSkipped: state.realNodeSkipped } : {}),
  };
}

/**
 * A control plane of its own in a new temporary directory, for a test or benchmark that must not
 * share one; `stop` takes it down and removes the directory.
 */
export async function privateControlPlane(
  prefix: string,
  nodes?: number,
): Promise<{ kubeconfig: string; kubeConfig: KubeConfig; stop: () => Promise<void> }> {
  const parent = await mkdtemp(join(tmpdir(), prefix));
  const dir = join(parent, "dev");
  // never the machine's real node: benchmarks and tests run many private planes, one real node fits
  const { kubeconfig } = await up({ dir, realNode: false, ...(nodes ? { nodes } : {}) });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfig);
  const stop = async () => {
    await down(dir);
    await rm(parent, { recursive: true, force: true });
  };
  return { kubeconfig, kubeConfig, stop };
}
