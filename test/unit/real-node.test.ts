import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { realNodeWanted } from "../../src/dev/cluster.ts";
import { cacheDir } from "../../src/dev/paths.ts";
import { isAbandoned } from "../../src/dev/real-node/claim.ts";
import {
  containerdConfig,
  kubeletConfig,
  type RealNodeLayout,
  realNodeApiserverArgs,
  realNodeSpecs,
} from "../../src/dev/real-node/config.ts";
import {
  archivesToImport,
  imageStoreRoot,
  parseImageList,
  staleImages,
} from "../../src/dev/real-node/image-store.ts";
import { localImageReferences, newestRelease, parseImageArchives } from "../../src/dev/real-node/images.ts";
import { cniConfig, iptablesCleanup } from "../../src/dev/real-node/network.ts";
import { clusterDnsReadiness, coreDnsObjects, realNodePlacement } from "../../src/dev/real-node/objects.ts";
import { mountsUnder } from "../../src/dev/real-node/teardown.ts";
import { compareVersions, ownVersion, releases } from "../../src/platform/catalog.ts";
import { workflowImages } from "../../src/platform/workflow-images.ts";
import { fakePki } from "../support/dev-fixtures.ts";

const pki = fakePki;
const layout: RealNodeLayout = {
  dir: "/state",
  kubeconfig: "/state/kubeconfig",
  pki,
  apiserverPort: 6443,
  ports: { kubelet: 2001, kubeletHealthz: 2002, proxyHealthz: 2003, proxyMetrics: 2004 },
  binaries: { kubelet: "/bin/kubelet", kubeProxy: "/bin/kube-proxy" },
};

describe("realNodeWanted", () => {
  it("follows the option, else SLIPWAY_REAL_NODE (on unless 0)", () => {
    expect(realNodeWanted(false, {})).toBe(false);
    expect(realNodeWanted(true, { SLIPWAY_REAL_NODE: "0" })).toBe(true);
    expect(realNodeWanted(undefined, { SLIPWAY_REAL_NODE: "0" })).toBe(false);
    expect(realNodeWanted(undefined, {})).toBe(true);
  });
});

describe("the real node's configuration", () => {
  it("keeps containerd's state, socket and CNI under the dev directory, its root (the images) in the machine's cache, with restrict_oom_score_adj", () => {
    const toml = containerdConfig("/state", "registry.k8s.io/pause:3.10");
    expect(toml).toContain(`root = "${imageStoreRoot()}"`);
    expect(imageStoreRoot()).toBe(join(cacheDir(), "real-node", "containerd-root"));
    expect(toml).toContain('state = "/state/real-node/containerd/state"');
    expect(toml).toContain('address = "/state/real-node/containerd/containerd.sock"');
    expect(toml).toContain("restrict_oom_score_adj = true");
    expect(toml).toContain('sandbox_image = "registry.k8s.io/pause:3.10"');
    expect(toml).toContain('conf_dir = "/state/real-node/cni/net.d"');
    expect(toml).toContain("SystemdCgroup = false");
  });
  it("runs the kubelet for cgroup v1 and never garbage-collects the imported images", () => {
    expect(kubeletConfig(layout)).toMatchObject({
      failCgroupV1: false,
      cgroupDriver: "cgroupfs",
      cgroupsPerQOS: false,
      enforceNodeAllocatable: [],
      clusterDNS: ["10.96.0.10"],
      imageGCHighThresholdPercent: 100,
      address: "10.233.0.1",
      port: 2001,
      healthzBindAddress: "127.0.0.1",
      registerWithTaints: [{ key: "slipway.dev/real-node", value: "true", effect: "NoSchedule" }],
    });
  });
  it("masquerades nothing and names its own bridge and pod range", () => {
    const bridge = (cniConfig("/ipam") as { plugins: Record<string, unknown>[] }).plugins[0];
    expect(bridge).toMatchObject({ type: "bridge", bridge: "slipway0", ipMasq: false });
    expect(JSON.stringify(bridge)).toContain("10.233.0.0/24");
  });
  it("starts the API server's bridge, containerd, the kubelet and kube-proxy (iptables), in that order", () => {
    const specs = realNodeSpecs(layout);
    expect(specs.map((s) => s.name)).toEqual(["apiserver-bridge", "containerd", "kubelet", "kube-proxy"]);
    expect(specs[0]?.args.slice(1)).toEqual(["10.233.0.1:6443", "127.0.0.1:6443"]);
    expect(specs[3]?.args).toEqual(
      expect.arrayContaining(["--proxy-mode=iptables", "--healthz-bind-address=127.0.0.1:2003"]),
    );
    expect(realNodeApiserverArgs(pki)).toContain("--advertise-address=10.233.0.1");
  });
  it("gives a pod the toleration and node selector of the real node; CoreDNS uses them", () => {
    const placement = realNodePlacement();
    expect(placement.nodeSelector).toEqual({ "slipway.dev/real-node": "true" });
    const deployment = coreDnsObjects("dns:1").find((o) => o.kind === "Deployment");
    expect(JSON.stringify(deployment)).toContain(JSON.stringify(placement.tolerations));
  });
});

describe("clusterDnsReadiness", () => {
  const slice = (...ready: (boolean | undefined)[]) => ({
    addressType: "IPv4",
    endpoints: ready.map((r) => ({
      addresses: ["10.233.0.5"],
      conditions: r === undefined ? {} : { ready: r },
    })),
  });
  it("is ready only once a kube-dns endpoint is ready (CoreDNS's readiness probe passed)", () => {
    expect(clusterDnsReadiness([])).toEqual({ ok: false, detail: "kube-dns: 0/0 endpoints ready" });
    expect(clusterDnsReadiness([slice(false, undefined)]).ok).toBe(false);
    expect(clusterDnsReadiness([slice(false), slice(true)])).toEqual({
      ok: true,
      detail: "kube-dns: 1/2 endpoints ready",
    });
  });
});

describe("iptablesCleanup", () => {
  const save = [
    "# Generated by iptables-save",
    "*nat",
    ":PREROUTING ACCEPT [0:0]",
    ":OUTPUT ACCEPT [0:0]",
    ":KUBE-SERVICES - [0:0]",
    ":KUBE-SVC-X - [0:0]",
    ":OTHER - [0:0]",
    '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
    "-A OUTPUT -j OTHER",
    "-A KUBE-SERVICES -d 10.96.0.1/32 -j KUBE-SVC-X",
    "COMMIT",
    "*filter",
    ":INPUT ACCEPT [0:0]",
    ":FORWARD ACCEPT [0:0]",
    ":SLIPWAY-REAL-NODE - [0:0]",
    "-A FORWARD -j SLIPWAY-REAL-NODE",
    "-A INPUT -p tcp -j ACCEPT",
    "COMMIT",
    "*mangle",
    ":PREROUTING ACCEPT [0:0]",
    "COMMIT",
  ].join("\n");

  it("deletes the jumps from built-in chains, then flushes and deletes the owned chains, table by table", () => {
    expect(iptablesCleanup(save)).toBe(
      [
        "*nat",
        '-D PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
        "-F KUBE-SERVICES",
        "-F KUBE-SVC-X",
        "-X KUBE-SERVICES",
        "-X KUBE-SVC-X",
        "COMMIT",
        "*filter",
        "-D FORWARD -j SLIPWAY-REAL-NODE",
        "-F SLIPWAY-REAL-NODE",
        "-X SLIPWAY-REAL-NODE",
        "COMMIT",
        "",
      ].join("\n"),
    );
  });
  it("is empty when nothing is owned", () => {
    expect(iptablesCleanup("*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -j ACCEPT\nCOMMIT\n")).toBe("");
  });
});

describe("mountsUnder", () => {
  it("lists the mounts below the root, deepest first, unescaping spaces", () => {
    const mountinfo = [
      "22 1 253:0 / / rw - ext4 /dev/vda rw",
      "30 22 0:50 / /state/real-node/kubelet/pods/a/volumes/x rw - tmpfs tmpfs rw",
      "31 22 0:51 / /state/real-node/containerd/state/io/k8s.io/b/rootfs rw - overlay overlay rw",
      "32 22 0:52 / /state/real-node/with\\040space rw - tmpfs tmpfs rw",
      "33 22 0:53 / /state/real-node-other rw - tmpfs tmpfs rw",
    ].join("\n");
    expect(mountsUnder(mountinfo, "/state/real-node")).toEqual([
      "/state/real-node/containerd/state/io/k8s.io/b/rootfs",
      "/state/real-node/kubelet/pods/a/volumes/x",
      "/state/real-node/with space",
    ]);
  });
});

describe("parseImageArchives", () => {
  it("reads one reference and archive per line and rejects anything else", () => {
    expect(parseImageArchives("a:1 /c/a.tar\n\nb:2 /c/b.tar\n")).toEqual([
      { reference: "a:1", archive: "/c/a.tar" },
      { reference: "b:2", archive: "/c/b.tar" },
    ]);
    expect(() => parseImageArchives("oops\n")).toThrow('unexpected output line "oops"');
  });
});

describe("localImageReferences", () => {
  it("holds every image of the newest release, its executor and step images, under the exact references", () => {
    const release = newestRelease();
    expect(releases.every((r) => compareVersions(r.version, release.version) <= 0)).toBe(true);
    expect(release.version).toBe(ownVersion);
    const set = Object.values(localImageReferences());
    const workflow = workflowImages(release.version);
    for (const reference of [...Object.values(release.images), workflow?.executor, workflow?.step])
      expect(set, reference).toContain(reference);
    for (const reference of set) expect(reference).toMatch(/^[a-z0-9.-]+\/[a-z0-9./-]+:[A-Za-z0-9._-]+$/);
  });
});

describe("an abandoned real-node claim", () => {
  const record = (name: string, pid: number) => ({ name, command: `/bin/${name}`, args: [], log: "", pid });
  const state = { processes: [record("kube-apiserver", 10), record("kubelet", 11)] };
  const claim = { dir: "/old", pid: 7, started: "500" };
  const machine = (live: Record<number, string>, running: number[]) => ({
    startTime: (pid: number) => live[pid],
    running: (p: { pid: number }) => running.includes(p.pid),
  });

  it("is one whose claiming process is gone and none of whose processes runs", () => {
    expect(isAbandoned(claim, state, machine({}, []))).toBe(true);
    // the claimer's PID now belongs to another process (another start time)
    expect(isAbandoned(claim, state, machine({ 7: "900" }, []))).toBe(true);
    // a claim written before claims named their process
    expect(isAbandoned({ dir: "/old" }, state, machine({}, []))).toBe(true);
  });

  it("is never one whose claimer lives (an `up` between claiming and starting) or whose processes run", () => {
    expect(isAbandoned(claim, { processes: [] }, machine({ 7: "500" }, []))).toBe(false);
    expect(isAbandoned(claim, state, machine({}, [11]))).toBe(false);
  });
});

describe("the real node's image store", () => {
  const pause = { reference: "registry.k8s.io/pause:3.10", archive: "/cache/pause-aaaa.tar" };
  const slipway = { reference: "ghcr.io/slipway-dev/slipway:0.2.0", archive: "/cache/slipway-bbbb.tar" };
  const listing = [
    "REF                              TYPE                                                 DIGEST      SIZE      PLATFORMS   LABELS",
    "ghcr.io/slipway-dev/slipway:0.2.0 application/vnd.docker.distribution.manifest.v2+json sha256:s1 112.2 MiB linux/amd64 io.cri-containerd.image=managed",
    "sha256:id-of-slipway application/vnd.docker.distribution.manifest.v2+json sha256:s1 112.2 MiB linux/amd64 io.cri-containerd.image=managed",
    "10.233.0.1:5000/team/model:v1 application/vnd.oci.image.manifest.v1+json sha256:m1 80 MiB linux/amd64 io.cri-containerd.image=managed",
    "sha256:id-of-model application/vnd.oci.image.manifest.v1+json sha256:m1 80 MiB linux/amd64 io.cri-containerd.image=managed",
    "",
  ].join("\n");

  it("reads `ctr images ls`: each image's name and the manifest it points at", () => {
    expect(parseImageList(listing)).toEqual([
      { name: "ghcr.io/slipway-dev/slipway:0.2.0", digest: "sha256:s1" },
      { name: "sha256:id-of-slipway", digest: "sha256:s1" },
      { name: "10.233.0.1:5000/team/model:v1", digest: "sha256:m1" },
      { name: "sha256:id-of-model", digest: "sha256:m1" },
    ]);
    expect(parseImageList("REF TYPE DIGEST SIZE PLATFORMS LABELS\n")).toEqual([]);
  });

  it("imports only what the store lacks or holds from another archive (a rebuilt image)", () => {
    const stored = parseImageList(listing);
    // an empty store: everything
    expect(archivesToImport([pause, slipway], {}, [])).toEqual([pause, slipway]);
    // held from this very archive: nothing; pause is not held
    expect(archivesToImport([pause, slipway], { [slipway.reference]: slipway.archive }, stored)).toEqual([
      pause,
    ]);
    // held, but imported from an older build of the image
    expect(archivesToImport([slipway], { [slipway.reference]: "/cache/slipway-old.tar" }, stored)).toEqual([
      slipway,
    ]);
    // recorded, but the store lost it (a root emptied by hand)
    expect(archivesToImport([pause], { [pause.reference]: pause.archive }, stored)).toEqual([pause]);
  });

  it("removes every image that is not one of the set, its CRI names with it; keeps the set's own", () => {
    const stored = parseImageList(listing);
    expect(staleImages(stored, [slipway.reference])).toEqual([
      "10.233.0.1:5000/team/model:v1",
      "sha256:id-of-model",
    ]);
    expect(staleImages(stored, [slipway.reference, "10.233.0.1:5000/team/model:v1"])).toEqual([]);
    expect(staleImages(stored, [])).toHaveLength(4);
  });
});
