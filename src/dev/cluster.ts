import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CoreV1Api, KubeConfig, StorageV1Api, type V1Node } from "@kubernetes/client-node";
import { ensureBinaries } from "./binaries.ts";
import { componentSpecs, fakeNodeAnnotation, type Layout, type Ports, portNames } from "./components.ts";
import { type Probe, probeApiserver, probeHttp, waitFor } from "./health.ts";
import { writeKubeconfig } from "./kubeconfig.ts";
import { createPki } from "./pki.ts";
import { stopPlatformServices } from "./platform-services.ts";
import { freePorts } from "./ports.ts";
import { isRunning, startProcess, stopProcesses } from "./processes.ts";
import { type DevState, readState, writeState } from "./state.ts";
import { pinnedVersions } from "./versions.ts";

export interface UpOptions {
  dir: string;
  nodes?: number;
  timeoutMs?: number;
  log?: (line: string) => void;
}

export const fakeNodeName = (index: number) => `kwok-node-${index}`;

/**
 * Starts the local control plane, or brings back whichever of its processes died (with their
 * original flags and ports), then waits until the API server is ready and every fake node is Ready.
 * Calling it again on a healthy control plane changes nothing.
 */
export async function up(options: UpOptions): Promise<DevState> {
  const { dir, log = () => {} } = options;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const binaries = await ensureBinaries(log);
  const kubeVersion = pinnedVersions().kube;
  let state = await readState(dir);
  if (state && state.kubeVersion !== kubeVersion) {
    throw new Error(
      `the control plane in ${dir} runs Kubernetes ${state.kubeVersion}, not the pinned ${kubeVersion}: run \`slipway dev down\` first`,
    );
  }
  if (!state) {
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
    state = { kubeVersion, kubeconfig, ports, pki, processes: [] };
  }
  const layout: Layout = { dir, ports: state.ports, pki: state.pki, kubeconfig: state.kubeconfig, binaries };
  const byName = new Map(state.processes.map((p) => [p.name, p]));
  for (const spec of componentSpecs(layout)) {
    let record = byName.get(spec.name);
    if (!record || !isRunning(record)) {
      log(`starting ${spec.name}${record ? " (it had stopped)" : ""}`);
      record = startProcess(spec);
      byName.set(spec.name, record);
      state = { ...state, processes: [...byName.values()] };
      await writeState(dir, state);
    }
    const readiness = readinessProbe(state, spec.name);
    const current = record;
    if (readiness) await waitFor(spec.name, readiness, { timeoutMs, alive: () => isRunning(current) });
  }
  await ensureFakeNodes(state.kubeconfig, options.nodes ?? 3);
  await ensureDefaultStorageClass(state.kubeconfig);
  await waitForNodesReady(state.kubeconfig, timeoutMs);
  return state;
}

function readinessProbe(state: DevState, name: string): (() => Promise<Probe>) | undefined {
  if (name === "etcd") return () => probeHttp(`http://127.0.0.1:${state.ports.etcdClient}/health`);
  if (name === "kube-apiserver")
    return () => probeApiserver(`https://127.0.0.1:${state.ports.apiserver}/readyz`, state.pki);
  return undefined;
}

function coreApi(kubeconfig: string): CoreV1Api {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfig);
  return config.makeApiClient(CoreV1Api);
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
  const api = coreApi(kubeconfig);
  for (let i = 0; i < count; i++) await ignoreConflict(api.createNode({ body: fakeNode(fakeNodeName(i)) }));
}

/** The default StorageClass, provisioned by kwok's volume stages (src/dev/kwok-stages.yaml); it allows expansion. */
export const defaultStorageClass = "standard";

async function ensureDefaultStorageClass(kubeconfig: string): Promise<void> {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfig);
  await ignoreConflict(
    config.makeApiClient(StorageV1Api).createStorageClass({
      body: {
        metadata: {
          name: defaultStorageClass,
          annotations: { "storageclass.kubernetes.io/is-default-class": "true" },
        },
        provisioner: "slipway.dev/kwok-volume",
        reclaimPolicy: "Delete",
        volumeBindingMode: "Immediate",
        allowVolumeExpansion: true,
      },
    }),
  );
}

/** Resolves when the create succeeded or the object already exists (409). */
async function ignoreConflict(create: Promise<unknown>): Promise<void> {
  try {
    await create;
  } catch (error) {
    if ((error as { code?: number }).code !== 409) throw error;
  }
}

const isReady = (node: V1Node) =>
  node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

async function waitForNodesReady(kubeconfig: string, timeoutMs: number): Promise<void> {
  const api = coreApi(kubeconfig);
  await waitFor(
    "fake nodes",
    async () => {
      const nodes = (await api.listNode()).items.filter(
        (n) => n.metadata?.annotations?.[fakeNodeAnnotation] === "fake",
      );
      const ready = nodes.filter(isReady).length;
      return { ok: nodes.length > 0 && ready === nodes.length, detail: `${ready}/${nodes.length} Ready` };
    },
    { timeoutMs, intervalMs: 250 },
  );
}

/** Stops exactly the processes `up` recorded (by PID, checked against their command) and removes the state. */
export async function down(dir: string): Promise<{ stopped: string[] }> {
  const services = await stopPlatformServices(dir);
  const state = await readState(dir);
  const running = state?.processes.filter(isRunning) ?? [];
  // reverse start order: nodes' agent and clients first, the store last
  await stopProcesses([...running].reverse());
  await rm(dir, { recursive: true, force: true });
  return { stopped: [...services, ...running.map((p) => p.name)] };
}

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
  const apiserver = await probeApiserver(`https://127.0.0.1:${state.ports.apiserver}/readyz`, state.pki);
  return {
    up: apiserver.ok && components.length > 0 && components.every((c) => c.running),
    kubeconfig: state.kubeconfig,
    apiserver,
    components,
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
  const { kubeconfig } = await up({ dir, ...(nodes ? { nodes } : {}) });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfig);
  const stop = async () => {
    await down(dir);
    await rm(parent, { recursive: true, force: true });
  };
  return { kubeconfig, kubeConfig, stop };
}
