import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { KubeConfig, type V1EndpointSliceList, type V1Node, type V1PodList } from "@kubernetes/client-node";
import { stringify } from "yaml";
import { nodeType, podType } from "../../kube/core-types.ts";
import { resourcePath } from "../../kube/keys.ts";
import type { ResourceType } from "../../kube/types.ts";
import type { Binaries } from "../binaries.ts";
import { describeObject } from "../describe-object.ts";
import { withDevClient } from "../dev-client.ts";
import { type Probe, probeHttp, waitFor } from "../health.ts";
import { signCertificate } from "../pki.ts";
import { describeWithLogs } from "../pod-logs.ts";
import { freePorts } from "../ports.ts";
import { stopProcesses } from "../processes.ts";
import type { DevState, RealNodeState } from "../state.ts";
import { writeState } from "../state.ts";
import { ensureProcess } from "../supervise.ts";
import { abandonedRealNode, claimRealNode, releaseRealNode } from "./claim.ts";
import {
  containerdConfig,
  kubeletConfig,
  type RealNodeLayout,
  realNodeName,
  realNodePaths,
  realNodePortNames,
  realNodeSpecs,
  registryHostsToml,
} from "./config.ts";
import { syncImageStore } from "./image-store.ts";
import { ensureLocalImages, localImageReferences } from "./images.ts";
import { bridgeGateway, cniConfig, createNetwork, removeIptablesRules, removeNetwork } from "./network.ts";
import {
  clusterDnsReadiness,
  clusterDnsSliceSelector,
  coreDnsObjects,
  realNodeStorageObjects,
  realNodeVolumeCount,
} from "./objects.ts";
import { realNodeHeldBy, realNodeTurnedOff } from "./skip-reasons.ts";
import { drainRealNode, killShims, removeContainers, unmountUnder } from "./teardown.ts";
import { freeReleasedVolumes } from "./volumes.ts";

const run = promisify(execFile);

/** Names of the real node's processes in the state file (stopped first on the way down). */
export const realNodeProcessNames = ["apiserver-bridge", "containerd", "kubelet", "kube-proxy"];

/** Why a real node cannot run on this machine (one line), or undefined when it can. */
export function realNodePreflight(binaries: Binaries): string | undefined {
  if (process.getuid?.() !== 0) return "it needs root (containerd, the kubelet and iptables)";
  const needed = [
    "/usr/bin/containerd",
    "/usr/sbin/runc",
    "/usr/bin/ctr",
    "/usr/lib/cni/bridge",
    "/usr/sbin/iptables",
  ];
  const missing = needed.filter((path) => !existsSync(path));
  if (missing.length) return `missing ${missing.join(", ")} (tools/setup/debian-packages.txt)`;
  if (!existsSync(binaries.kubelet) || !existsSync(binaries.kubeProxy))
    return "the kubelet or kube-proxy is not built (tools/kube/build.sh)";
  return undefined;
}

/**
 * Decides, for a new dev directory, whether it gets the machine's real node: wanted, possible here and
 * not held by another directory. Records the decision (ports, or the reason) in the state.
 */
export async function decideRealNode(
  dir: string,
  state: DevState,
  wanted: boolean,
  binaries: Binaries,
  log: (line: string) => void = () => {},
): Promise<DevState> {
  const reason = wanted ? realNodePreflight(binaries) : realNodeTurnedOff;
  if (reason) return { ...state, realNodeSkipped: reason };
  await writeState(dir, state);
  await clearAbandonedRealNode(dir, log);
  const claim = await claimRealNode(dir);
  if (!claim.ok) return { ...state, realNodeSkipped: realNodeHeldBy(claim.holder) };
  const allocated = await freePorts(realNodePortNames.length);
  const ports = Object.fromEntries(
    realNodePortNames.map((name, i) => [name, allocated[i]]),
  ) as unknown as RealNodeState["ports"];
  return { ...state, realNode: { ports } };
}

function layoutOf(dir: string, state: DevState, realNode: RealNodeState, binaries: Binaries): RealNodeLayout {
  return {
    dir,
    kubeconfig: state.kubeconfig,
    pki: state.pki,
    apiserverPort: state.ports.apiserver,
    ports: realNode.ports,
    binaries: { kubelet: binaries.kubelet, kubeProxy: binaries.kubeProxy },
  };
}

async function writeNodeFiles(layout: RealNodeLayout): Promise<void> {
  const p = realNodePaths(layout.dir);
  for (const path of [dirname(p.containerdSocket), p.cniConfDir, p.cniIpamDir, p.kubeletRoot, p.volumes])
    await mkdir(path, { recursive: true });
  await writeFile(p.containerdConfig, containerdConfig(layout.dir, localImageReferences().pause));
  await writeFile(
    join(p.cniConfDir, "10-slipway.conflist"),
    JSON.stringify(cniConfig(p.cniIpamDir), null, 2),
  );
  await writeFile(p.kubeletConfig, stringify(kubeletConfig(layout)));
  for (let i = 0; i < realNodeVolumeCount; i++) {
    const volume = join(p.volumes, `pv-${i}`);
    await mkdir(volume, { recursive: true });
    await chmod(volume, 0o777); // any pod user may write its claim
  }
  if (!existsSync(p.kubeletCert))
    await signCertificate(layout.pki, {
      key: p.kubeletKey,
      cert: p.kubeletCert,
      subject: `/CN=${realNodeName}`,
      extensions: [
        `subjectAltName=IP:${bridgeGateway},IP:127.0.0.1,DNS:${realNodeName}`,
        "extendedKeyUsage=serverAuth",
        "keyUsage=critical,digitalSignature,keyEncipherment",
      ],
    });
}

const commandProbe = (command: string, args: string[]) => async (): Promise<Probe> =>
  run(command, args).then(
    () => ({ ok: true, detail: "ok" }),
    (error: Error) => ({ ok: false, detail: error.message.split("\n")[0] ?? "" }),
  );

/**
 * Tears down the real node of another directory whose claim is abandoned (claim.ts isAbandoned) the
 * way `dev down` would, which gives the claim back: otherwise every later `up` on this machine would
 * go without a real node until someone found the directory and ran `dev down` in it.
 */
export async function clearAbandonedRealNode(dir: string, log: (line: string) => void): Promise<void> {
  const abandoned = await abandonedRealNode();
  if (!abandoned || abandoned.dir === dir) return;
  log(`real node: ${abandoned.dir} holds it but none of its processes runs; removing what it left`);
  await writeState(abandoned.dir, await stopRealNode(abandoned.dir, abandoned.state, false));
}

/**
 * Starts (or brings back) the real node of `dir`: network, containerd with the local images, the
 * kubelet, kube-proxy; waits until the Node is Ready, then applies CoreDNS and the node's volumes,
 * and waits until cluster DNS answers (a pod started before that could not resolve a Service).
 */
export async function startRealNode(
  dir: string,
  initial: DevState,
  binaries: Binaries,
  options: { log: (line: string) => void; timeoutMs: number },
): Promise<DevState> {
  const realNode = initial.realNode;
  if (!realNode) return initial;
  await clearAbandonedRealNode(dir, options.log);
  const claim = await claimRealNode(dir);
  if (!claim.ok) throw new Error(`the real node of ${claim.holder} runs on this machine: stop it first`);
  const layout = layoutOf(dir, initial, realNode, binaries);
  const [archives] = await Promise.all([
    ensureLocalImages(options.log),
    writeNodeFiles(layout),
    createNetwork(),
  ]);
  const paths = realNodePaths(dir);
  const readiness: Record<string, () => Promise<Probe>> = {
    containerd: commandProbe("ctr", ["--address", paths.containerdSocket, "version"]),
    kubelet: () => probeHttp(`http://127.0.0.1:${realNode.ports.kubeletHealthz}/healthz`),
  };
  // a node coming up (not one whose process `up` restarts) finds the store as the last node left it
  const fresh = !initial.processes.some((p) => p.name === "containerd");
  let state = initial;
  for (const spec of realNodeSpecs(layout)) {
    state = await ensureProcess(dir, state, spec, { ...options, readiness: readiness[spec.name] });
    if (spec.name === "containerd") {
      // containers a node left that went without `dev down`
      if (fresh) await removeContainers(paths.containerdSocket);
      await syncImageStore(paths.containerdSocket, archives, { log: options.log, prune: fresh });
    }
  }
  await waitForRealNodeReady(state.kubeconfig, options.timeoutMs);
  await applyNodeObjects(state.kubeconfig, dir);
  await waitForClusterDns(state.kubeconfig, options.timeoutMs);
  return state;
}

const endpointSliceType: ResourceType = {
  group: "discovery.k8s.io",
  version: "v1",
  kind: "EndpointSlice",
  plural: "endpointslices",
  namespaced: true,
};

async function waitForClusterDns(kubeconfig: string, timeoutMs: number): Promise<void> {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfig);
  await withDevClient(config, ({ rest }) =>
    waitFor(
      "cluster DNS",
      async () => {
        const slices = await rest
          .request<V1EndpointSliceList>(
            "GET",
            resourcePath(endpointSliceType, { namespace: "kube-system" }),
            { query: { labelSelector: clusterDnsSliceSelector } },
          )
          .catch(() => ({ items: [] }));
        return clusterDnsReadiness(slices.items);
      },
      {
        timeoutMs,
        intervalMs: 250,
        // CoreDNS's pods, their states and last log lines: why it is not ready
        explain: async () =>
          describeWithLogs(
            config,
            await rest.request<V1PodList>("GET", resourcePath(podType, { namespace: "kube-system" }), {
              query: { labelSelector: "k8s-app=kube-dns" },
            }),
          ),
      },
    ),
  );
}

const isReady = (node: V1Node | undefined) =>
  node?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

export async function waitForRealNodeReady(kubeconfig: string, timeoutMs: number): Promise<void> {
  await withDevClient(kubeconfig, ({ rest }) => {
    const readNode = () => rest.request<V1Node>("GET", resourcePath(nodeType, { name: realNodeName }));
    return waitFor(
      realNodeName,
      async () => {
        const node = await readNode().catch(() => undefined);
        return { ok: isReady(node), detail: node ? "registered, not Ready" : "not registered" };
      },
      { timeoutMs, intervalMs: 250, explain: async () => describeObject(await readNode()) },
    );
  });
}

async function applyNodeObjects(kubeconfig: string, dir: string): Promise<void> {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfig);
  await withDevClient(config, async ({ rest, kube }) => {
    // a node drained by an earlier stop (its Node object outlives the kubelet) takes pods again
    await rest.request("PATCH", resourcePath(nodeType, { name: realNodeName }), {
      contentType: "application/merge-patch+json",
      body: { spec: { unschedulable: false } },
    });
    const objects = [...coreDnsObjects(localImageReferences().coredns), ...realNodeStorageObjects(dir)];
    for (const object of objects) await kube.apply(object, { force: true });
  });
  await freeReleasedVolumes(config);
}

/**
 * Stops the real node of `dir` and removes what it created: its pods (through the kubelet), the
 * processes `up` started and containerd's shims, the mounts under its directory, the pod network
 * namespaces, the bridge and the iptables chains. Every loop is bounded.
 */
export async function stopRealNode(dir: string, state: DevState, apiserverUp: boolean): Promise<DevState> {
  const paths = realNodePaths(dir);
  const record = (name: string) => state.processes.filter((p) => p.name === name);
  if (apiserverUp && record("kubelet").length) await drainRealNode(state.kubeconfig).catch(() => {});
  await stopProcesses([...record("kube-proxy"), ...record("kubelet")]);
  await removeContainers(paths.containerdSocket);
  await stopProcesses([...record("containerd"), ...record("apiserver-bridge")]);
  await killShims(paths.containerdSocket);
  await unmountUnder(paths.root);
  await unmountUnder(paths.containerdRoot); // containerd's own while it unpacks (tmpmounts)
  await removeNetwork();
  await removeIptablesRules();
  await releaseRealNode(dir);
  return { ...state, processes: state.processes.filter((p) => !realNodeProcessNames.includes(p.name)) };
}

/** Lets the real node's containerd pull from dev's registry at `registry` (host:port). */
export async function writeRegistryHosts(dir: string, registry: string): Promise<void> {
  const hostDir = join(realNodePaths(dir).registryHosts, registry);
  await mkdir(hostDir, { recursive: true });
  await writeFile(join(hostDir, "hosts.toml"), registryHostsToml(registry));
}
