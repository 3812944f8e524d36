import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { Binaries } from "../../src/dev/binaries.ts";
import { componentSpecs, type Layout } from "../../src/dev/components.ts";
import { packageRoot } from "../../src/dev/paths.ts";
import { isRunning } from "../../src/dev/processes.ts";
import { parseVersionsEnv } from "../../src/dev/versions.ts";
import { fakePki } from "../support/dev-fixtures.ts";

const layout: Layout = {
  dir: "/state",
  ports: {
    etcdClient: 1001,
    etcdPeer: 1002,
    apiserver: 1003,
    controllerManager: 1004,
    scheduler: 1005,
    kwok: 1006,
  },
  pki: fakePki,
  kubeconfig: "/state/kubeconfig",
  binaries: Object.fromEntries(
    ["etcd", "kubeApiserver", "kubeControllerManager", "kubeScheduler", "kubectl", "kwok", "helm"].map(
      (k) => [k, `/bin/${k}`],
    ),
  ) as unknown as Binaries,
};

describe("versions.env", () => {
  it("parses the pinned versions, ignoring comments", () => {
    const text =
      "# c\nKUBE_VERSION=v1.36.3\nETCD_VERSION=v3.6.16\n\nKWOK_VERSION=v0.8.0\nHELM_VERSION=v3.19.5\nCOREDNS_VERSION=v1.14.7\n";
    expect(parseVersionsEnv(text)).toEqual({
      kube: "v1.36.3",
      etcd: "v3.6.16",
      kwok: "v0.8.0",
      helm: "v3.19.5",
      coredns: "v1.14.7",
    });
  });
  it("names a missing key", () => {
    expect(() => parseVersionsEnv("KUBE_VERSION=v1\n")).toThrow("ETCD_VERSION is not set");
  });
});

describe("componentSpecs", () => {
  const specs = componentSpecs(layout);
  const args = (name: string) => specs.find((s) => s.name === name)?.args ?? [];

  it("starts the store first and the node agent last", () => {
    expect(specs.map((s) => s.name)).toEqual([
      "etcd",
      "kube-apiserver",
      "kube-controller-manager",
      "kube-scheduler",
      "kwok",
    ]);
  });
  it("binds everything to loopback on the allocated ports", () => {
    expect(args("etcd")).toContain("--listen-client-urls=https://127.0.0.1:1001");
    expect(args("kube-apiserver")).toEqual(
      expect.arrayContaining([
        "--etcd-servers=https://127.0.0.1:1001",
        "--bind-address=127.0.0.1",
        "--secure-port=1003",
      ]),
    );
    expect(args("kube-controller-manager")).toContain("--secure-port=1004");
    expect(args("kwok")).toContain("--server-address=127.0.0.1:1006");
  });
  it("etcd takes only clients with a certificate of its own CA; the API server connects with its one", () => {
    expect(args("etcd")).toEqual(
      expect.arrayContaining([
        "--client-cert-auth=true",
        "--trusted-ca-file=/pki/etcd-ca.crt",
        "--cert-file=/pki/etcd-server.crt",
        "--peer-client-cert-auth=true",
      ]),
    );
    expect(args("kube-apiserver")).toEqual(
      expect.arrayContaining([
        "--etcd-cafile=/pki/etcd-ca.crt",
        "--etcd-certfile=/pki/apiserver-etcd-client.crt",
        "--etcd-keyfile=/pki/apiserver-etcd-client.key",
      ]),
    );
  });
  it("turns RBAC on and gives the API server its certificates", () => {
    expect(args("kube-apiserver")).toEqual(
      expect.arrayContaining([
        "--authorization-mode=Node,RBAC",
        "--client-ca-file=/pki/ca.crt",
        "--tls-cert-file=/pki/apiserver.crt",
        "--service-account-signing-key-file=/pki/sa.key",
      ]),
    );
  });
  it("logs each process to its own file", () => {
    expect(new Set(specs.map((s) => s.log)).size).toBe(specs.length);
  });
});

describe("kwok stages", () => {
  const docs = parseAllDocuments(readFileSync(join(packageRoot, "src/dev/kwok-stages.yaml"), "utf8")).map(
    (d) => d.toJS() as { kind: string; metadata: { name: string }; spec: { selector: unknown } },
  );
  it("are Stage documents with unique names", () => {
    expect(docs.every((d) => d.kind === "Stage")).toBe(true);
    expect(new Set(docs.map((d) => d.metadata.name)).size).toBe(docs.length);
  });
  it("keep pods asked to hang or crash-loop out of the normal ready stage", () => {
    const running = docs.find((d) => d.metadata.name === "slipway-pod-running");
    expect(JSON.stringify(running?.spec.selector)).toContain('"values":["hang","crashloop"]');
  });
});

describe("isRunning", () => {
  it("is false for a PID that runs another command than the recorded one", () => {
    expect(isRunning({ name: "x", command: "/not/this/binary", args: [], log: "", pid: process.pid })).toBe(
      false,
    );
  });
  it("is true for this very process", () => {
    const command = readFileSync(`/proc/${process.pid}/cmdline`, "utf8").split("\0")[0] as string;
    expect(isRunning({ name: "x", command, args: [], log: "", pid: process.pid })).toBe(true);
  });
});
