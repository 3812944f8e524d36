import { join } from "node:path";
import { packageRoot } from "../paths.ts";
import type { Pki } from "../pki.ts";
import type { ProcessRecord } from "../processes.ts";
import { imageStoreRoot } from "./image-store.ts";
import { bridgeGateway, clusterDnsIp, podCidr } from "./network.ts";

/** The real node's Node name, label and taint: a pod opts in with realNodePlacement(). */
export const realNodeName = "slipway-real-node";
export const realNodeLabel = "slipway.dev/real-node";

export interface RealNodePorts {
  kubelet: number;
  kubeletHealthz: number;
  proxyHealthz: number;
  proxyMetrics: number;
}
export const realNodePortNames: (keyof RealNodePorts)[] = [
  "kubelet",
  "kubeletHealthz",
  "proxyHealthz",
  "proxyMetrics",
];

export interface RealNodeLayout {
  /** the dev directory; the node's own files are under <dir>/real-node */
  dir: string;
  kubeconfig: string;
  pki: Pki;
  apiserverPort: number;
  ports: RealNodePorts;
  binaries: { kubelet: string; kubeProxy: string };
}

/** Where the real node keeps its files: everything containerd and the kubelet create or mount is below it. */
export function realNodePaths(dir: string) {
  const root = join(dir, "real-node");
  return {
    root,
    containerdConfig: join(root, "containerd.toml"),
    containerdSocket: join(root, "containerd", "containerd.sock"),
    /** the machine's, not the directory's: it keeps the imported images from one `up` to the next (image-store.ts) */
    containerdRoot: imageStoreRoot(),
    containerdState: join(root, "containerd", "state"),
    registryHosts: join(root, "containerd", "certs.d"),
    cniConfDir: join(root, "cni", "net.d"),
    cniIpamDir: join(root, "cni", "ipam"),
    kubeletConfig: join(root, "kubelet.yaml"),
    kubeletRoot: join(root, "kubelet"),
    kubeletCert: join(root, "kubelet.crt"),
    kubeletKey: join(root, "kubelet.key"),
    volumes: join(root, "volumes"),
  };
}

const quote = (value: string) => JSON.stringify(value);

/**
 * containerd's configuration: its own root, state and socket under the dev directory, runc with the
 * cgroupfs driver, our CNI configuration and the Debian plugins. `restrict_oom_score_adj` because the
 * machine lacks CAP_SYS_RESOURCE (runc otherwise fails writing /proc/self/oom_score_adj).
 */
export function containerdConfig(dir: string, sandboxImage: string): string {
  const p = realNodePaths(dir);
  const cri = '[plugins."io.containerd.grpc.v1.cri"';
  return `version = 2
root = ${quote(p.containerdRoot)}
state = ${quote(p.containerdState)}
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]

[grpc]
  address = ${quote(p.containerdSocket)}

[plugins."io.containerd.internal.v1.opt"]
  path = ${quote(join(p.root, "containerd", "opt"))}

${cri}]
  sandbox_image = ${quote(sandboxImage)}
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_selinux = false

${cri}.containerd]
  snapshotter = "overlayfs"
  default_runtime_name = "runc"

${cri}.containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"

${cri}.containerd.runtimes.runc.options]
  SystemdCgroup = false
  Root = ${quote(join(p.containerdState, "runc"))}

${cri}.cni]
  bin_dir = "/usr/lib/cni"
  conf_dir = ${quote(p.cniConfDir)}
  max_conf_num = 1

${cri}.registry]
  config_path = ${quote(p.registryHosts)}
`;
}

/**
 * containerd's hosts file for dev's registry (plain HTTP on the bridge, anonymous pulls), at
 * <registryHosts>/<host:port>/hosts.toml: https://github.com/containerd/containerd/blob/main/docs/hosts.md
 * (`server`, and a `host` entry whose http scheme makes containerd speak plain HTTP to it). Pure.
 */
export function registryHostsToml(registry: string): string {
  const url = quote(`http://${registry}`);
  return `server = ${url}

[host.${url}]
  capabilities = ["pull", "resolve"]
`;
}

/**
 * The kubelet's configuration. cgroup v1 on this host: failCgroupV1 false, the cgroupfs driver, no
 * QoS cgroups, no node-allocatable enforcement. Images never garbage-collected (they are imported,
 * nothing can be pulled back). Served on the bridge address, with a certificate of the dev CA.
 */
export function kubeletConfig(layout: RealNodeLayout): object {
  const p = realNodePaths(layout.dir);
  return {
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    kind: "KubeletConfiguration",
    address: bridgeGateway,
    port: layout.ports.kubelet,
    readOnlyPort: 0,
    healthzBindAddress: "127.0.0.1",
    healthzPort: layout.ports.kubeletHealthz,
    tlsCertFile: p.kubeletCert,
    tlsPrivateKeyFile: p.kubeletKey,
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true },
      x509: { clientCAFile: layout.pki.caCert },
    },
    authorization: { mode: "Webhook" },
    containerRuntimeEndpoint: `unix://${p.containerdSocket}`,
    cgroupDriver: "cgroupfs",
    cgroupsPerQOS: false,
    enforceNodeAllocatable: [],
    failCgroupV1: false,
    failSwapOn: false,
    clusterDNS: [clusterDnsIp],
    clusterDomain: "cluster.local",
    resolvConf: "/etc/resolv.conf",
    podLogsDir: join(p.kubeletRoot, "pod-logs"),
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    evictionHard: {
      "memory.available": "100Mi",
      "nodefs.available": "1%",
      "nodefs.inodesFree": "1%",
      "imagefs.available": "1%",
    },
    maxPods: 60,
    registerWithTaints: [{ key: realNodeLabel, value: "true", effect: "NoSchedule" }],
  };
}

/** The real node's processes in start order (pure, like componentSpecs: a restart gets the same flags). */
export function realNodeSpecs(layout: RealNodeLayout): Omit<ProcessRecord, "pid">[] {
  const p = realNodePaths(layout.dir);
  const log = (name: string) => join(layout.dir, "logs", `${name}.log`);
  return [
    {
      // pods reach the API server at the bridge's gateway (the `kubernetes` Service's endpoint); it
      // keeps listening on 127.0.0.1 only, so this forwards that one address and port to it
      name: "apiserver-bridge",
      command: process.execPath,
      log: log("apiserver-bridge"),
      args: [
        join(packageRoot, "src/dev/real-node/tcp-forward.ts"),
        `${bridgeGateway}:${layout.apiserverPort}`,
        `127.0.0.1:${layout.apiserverPort}`,
      ],
    },
    {
      name: "containerd",
      command: "/usr/bin/containerd",
      log: log("containerd"),
      args: ["--config", p.containerdConfig],
    },
    {
      name: "kubelet",
      command: layout.binaries.kubelet,
      log: log("kubelet"),
      args: [
        `--config=${p.kubeletConfig}`,
        `--kubeconfig=${layout.kubeconfig}`,
        `--root-dir=${p.kubeletRoot}`,
        `--cert-dir=${join(p.kubeletRoot, "pki")}`,
        `--hostname-override=${realNodeName}`,
        `--node-ip=${bridgeGateway}`,
        `--node-labels=${realNodeLabel}=true`,
        "--v=1",
      ],
    },
    {
      name: "kube-proxy",
      command: layout.binaries.kubeProxy,
      log: log("kube-proxy"),
      args: [
        `--kubeconfig=${layout.kubeconfig}`,
        "--proxy-mode=iptables",
        `--hostname-override=${realNodeName}`,
        `--cluster-cidr=${podCidr}`,
        `--healthz-bind-address=127.0.0.1:${layout.ports.proxyHealthz}`,
        `--metrics-bind-address=127.0.0.1:${layout.ports.proxyMetrics}`,
        // leave the host's conntrack and route_localnet sysctls alone
        "--conntrack-max-per-core=0",
        "--conntrack-tcp-timeout-established=0",
        "--conntrack-tcp-timeout-close-wait=0",
        "--iptables-localhost-nodeports=false",
        // NodePorts on the bridge's address only, never on a device that leads off the machine
        `--nodeport-addresses=${bridgeGateway}/32`,
        "--v=1",
      ],
    },
  ];
}

/** What the API server needs besides its kwok-only flags: its in-cluster address and a kubelet client identity. */
export function realNodeApiserverArgs(pki: Pki): string[] {
  return [
    `--advertise-address=${bridgeGateway}`,
    `--kubelet-client-certificate=${pki.adminCert}`,
    `--kubelet-client-key=${pki.adminKey}`,
    `--kubelet-certificate-authority=${pki.caCert}`,
    "--kubelet-preferred-address-types=InternalIP",
  ];
}
