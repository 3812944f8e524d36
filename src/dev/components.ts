import { join } from "node:path";
import type { Binaries } from "./binaries.ts";
import { packageRoot } from "./paths.ts";
import type { Pki } from "./pki.ts";
import type { ProcessRecord } from "./processes.ts";

export interface Ports {
  etcdClient: number;
  etcdPeer: number;
  apiserver: number;
  controllerManager: number;
  scheduler: number;
  kwok: number;
}

export const portNames: (keyof Ports)[] = [
  "etcdClient",
  "etcdPeer",
  "apiserver",
  "controllerManager",
  "scheduler",
  "kwok",
];

export interface Layout {
  dir: string;
  ports: Ports;
  pki: Pki;
  kubeconfig: string;
  binaries: Binaries;
}

export type ComponentName = "etcd" | "kube-apiserver" | "kube-controller-manager" | "kube-scheduler" | "kwok";

/** Annotation that tells kwok a Node is one of its fake nodes. */
export const fakeNodeAnnotation = "kwok.x-k8s.io/node";

export const etcdClientUrl = (ports: Pick<Ports, "etcdClient">) => `https://127.0.0.1:${ports.etcdClient}`;

/**
 * The command lines of the control plane, in start order. Pure: the same layout always gives the
 * same processes, so `up` can restart one that died with exactly its original flags.
 */
export function componentSpecs(layout: Layout): Omit<ProcessRecord, "pid">[] {
  const { dir, ports, pki, kubeconfig, binaries } = layout;
  const log = (name: string) => join(dir, "logs", `${name}.log`);
  const etcdUrl = etcdClientUrl(ports);
  const peerUrl = `https://127.0.0.1:${ports.etcdPeer}`;
  const delegated = [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    "--bind-address=127.0.0.1",
    "--leader-elect=false",
  ];
  /** A component that leaves authentication and authorization to the API server (`delegated`). */
  const delegatedComponent = (
    name: string,
    command: string,
    port: number,
    flags: { own?: string[]; tuning?: string[] } = {},
  ): Omit<ProcessRecord, "pid"> => ({
    name,
    command,
    log: log(name),
    args: [
      ...delegated,
      `--secure-port=${port}`,
      `--cert-dir=${join(dir, name)}`,
      ...(flags.own ?? []),
      "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
      ...(flags.tuning ?? []),
      "--v=1",
    ],
  });
  return [
    {
      name: "etcd",
      command: binaries.etcd,
      log: log("etcd"),
      args: [
        "--name=slipway-dev",
        `--data-dir=${join(dir, "etcd")}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=slipway-dev=${peerUrl}`,
        // TLS, and only clients (and peers) with a certificate of etcd's own CA (src/dev/pki.ts)
        `--cert-file=${pki.etcdServerCert}`,
        `--key-file=${pki.etcdServerKey}`,
        "--client-cert-auth=true",
        `--trusted-ca-file=${pki.etcdCaCert}`,
        `--peer-cert-file=${pki.etcdServerCert}`,
        `--peer-key-file=${pki.etcdServerKey}`,
        "--peer-client-cert-auth=true",
        `--peer-trusted-ca-file=${pki.etcdCaCert}`,
        // a throwaway store for tests: durability is not worth the fsync latency
        "--unsafe-no-fsync=true",
        "--log-level=warn",
      ],
    },
    {
      name: "kube-apiserver",
      command: binaries.kubeApiserver,
      log: log("kube-apiserver"),
      args: [
        `--etcd-servers=${etcdUrl}`,
        `--etcd-cafile=${pki.etcdCaCert}`,
        `--etcd-certfile=${pki.etcdClientCert}`,
        `--etcd-keyfile=${pki.etcdClientKey}`,
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        `--secure-port=${ports.apiserver}`,
        `--cert-dir=${join(dir, "pki")}`,
        `--tls-cert-file=${pki.servingCert}`,
        `--tls-private-key-file=${pki.servingKey}`,
        `--client-ca-file=${pki.caCert}`,
        `--service-account-key-file=${pki.serviceAccountPub}`,
        `--service-account-signing-key-file=${pki.serviceAccountKey}`,
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
        "--authorization-mode=Node,RBAC",
        "--service-cluster-ip-range=10.96.0.0/16",
        "--allow-privileged=true",
        "--profiling=false",
        "--v=1",
      ],
    },
    delegatedComponent("kube-controller-manager", binaries.kubeControllerManager, ports.controllerManager, {
      own: [`--root-ca-file=${pki.caCert}`, `--service-account-private-key-file=${pki.serviceAccountKey}`],
      tuning: ["--kube-api-qps=500", "--kube-api-burst=1000"],
    }),
    delegatedComponent("kube-scheduler", binaries.kubeScheduler, ports.scheduler),
    {
      name: "kwok",
      command: binaries.kwok,
      log: log("kwok"),
      args: [
        `--kubeconfig=${kubeconfig}`,
        `--config=${join(packageRoot, "src/dev/kwok-stages.yaml")}`,
        "--manage-all-nodes=false",
        `--manage-nodes-with-annotation-selector=${fakeNodeAnnotation}=fake`,
        "--cidr=10.244.0.1/16",
        "--node-ip=10.240.0.1",
        `--server-address=127.0.0.1:${ports.kwok}`,
        "--node-lease-duration-seconds=40",
      ],
    },
  ];
}
