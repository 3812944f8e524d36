import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * The real node's pod network: a bridge of its own with a /24 no other part of this machine uses. Its
 * gateway address is also the node's IP (the kubelet refuses a loopback one) and where pods reach the
 * API server. Nothing is routed, NATed or forwarded from it to anything off the machine.
 */
export const bridgeName = "slipway0";
export const podCidr = "10.233.0.0/24";
export const bridgeGateway = "10.233.0.1";
/** The Service range of the control plane (kube-apiserver's --service-cluster-ip-range). */
export const serviceCidr = "10.96.0.0/16";
/** The kubelet's cluster DNS: the kube-dns Service in front of CoreDNS. */
export const clusterDnsIp = "10.96.0.10";
/** Our own filter chain (jumped to from FORWARD): nothing from the bridge leaves by another device. */
export const forwardGuardChain = "SLIPWAY-REAL-NODE";
/** The chains the real node's parts create: kube-proxy and the kubelet (KUBE-), CNI portmap (CNI-), ours. */
export const ownedChainPrefixes = ["KUBE-", "CNI-", "SLIPWAY-"];

/** The CNI configuration list containerd reads: bridge + host-local IPAM, portmap, no masquerade. */
export function cniConfig(ipamDir: string): object {
  return {
    cniVersion: "1.0.0",
    name: "slipway",
    plugins: [
      {
        type: "bridge",
        bridge: bridgeName,
        isGateway: true,
        ipMasq: false,
        hairpinMode: true,
        ipam: {
          type: "host-local",
          ranges: [[{ subnet: podCidr, gateway: bridgeGateway }]],
          // the default route only leads to the bridge's gateway: Service IPs, the API server
          routes: [{ dst: "0.0.0.0/0" }],
          dataDir: ipamDir,
        },
      },
      { type: "portmap", capabilities: { portMappings: true } },
    ],
  };
}

const ip = (...args: string[]) => run("ip", args);

async function linkExists(name: string): Promise<boolean> {
  return ip("link", "show", name).then(
    () => true,
    () => false,
  );
}

/**
 * Creates the bridge with its gateway address (the kubelet's node IP and the API server's in-cluster
 * address must exist before any pod does), lets traffic from it be routed back onto it (Service IPs
 * DNATed to pods) and guards FORWARD so nothing from it reaches another device.
 */
export async function createNetwork(): Promise<void> {
  if (!(await linkExists(bridgeName))) await ip("link", "add", bridgeName, "type", "bridge");
  await ip("addr", "replace", `${bridgeGateway}/24`, "dev", bridgeName);
  await ip("link", "set", bridgeName, "up");
  // forwarding for packets that arrive on the bridge only (net.ipv4.ip_forward stays as it was)
  await run("sysctl", ["-qw", `net.ipv4.conf.${bridgeName}.forwarding=1`]);
  await ensureForwardGuard();
}

async function ensureForwardGuard(): Promise<void> {
  const iptables = (...args: string[]) => run("iptables", ["-w", "5", ...args]);
  await iptables("-N", forwardGuardChain).catch(() => {});
  await iptables("-F", forwardGuardChain);
  await iptables("-A", forwardGuardChain, "-i", bridgeName, "!", "-o", bridgeName, "-j", "DROP");
  await iptables("-A", forwardGuardChain, "!", "-i", bridgeName, "-o", bridgeName, "-j", "DROP");
  const jump = ["FORWARD", "-j", forwardGuardChain];
  const present = await iptables("-C", ...jump).then(
    () => true,
    () => false,
  );
  if (!present) await iptables("-I", ...jump);
}

/**
 * The `iptables-restore --noflush` input that removes every rule jumping to an owned chain from the
 * built-in chains, then flushes and deletes the owned chains. Pure: from `iptables-save` output.
 */
export function iptablesCleanup(save: string, prefixes: string[] = ownedChainPrefixes): string {
  const owned = (chain: string) => prefixes.some((prefix) => chain.startsWith(prefix));
  const out: string[] = [];
  let table: string | undefined;
  let chains: string[] = [];
  let deletions: string[] = [];
  const flush = () => {
    if (table && (chains.length || deletions.length)) {
      out.push(`*${table}`, ...deletions, ...chains.map((c) => `-F ${c}`), ...chains.map((c) => `-X ${c}`));
      out.push("COMMIT");
    }
    chains = [];
    deletions = [];
  };
  for (const line of save.split("\n")) {
    if (line.startsWith("*")) {
      table = line.slice(1).trim();
    } else if (line.startsWith(":")) {
      const chain = line.slice(1).split(" ")[0] ?? "";
      if (owned(chain)) chains.push(chain);
    } else if (line.startsWith("-A ")) {
      const [, chain = "", ...rest] = line.split(" ");
      const jumpAt = rest.findIndex((token) => token === "-j" || token === "-g");
      const target = jumpAt >= 0 ? (rest[jumpAt + 1] ?? "") : "";
      if (!owned(chain) && owned(target)) deletions.push(`-D ${line.slice(3)}`);
    } else if (line.startsWith("COMMIT")) {
      flush();
      table = undefined;
    }
  }
  return out.length ? `${out.join("\n")}\n` : "";
}

/** Removes the owned chains (and the jumps to them) from iptables and ip6tables. */
export async function removeIptablesRules(): Promise<void> {
  for (const family of ["iptables", "ip6tables"]) {
    const { stdout } = await run(`${family}-save`).catch(() => ({ stdout: "" }));
    const cleanup = iptablesCleanup(stdout);
    if (!cleanup) continue;
    await new Promise<void>((resolve, reject) => {
      const child = execFile(`${family}-restore`, ["-w", "5", "--noflush"], (error) =>
        error ? reject(new Error(`${family}-restore: ${error.message}`)) : resolve(),
      );
      child.stdin?.end(cleanup);
    });
  }
}

/** Owned chains still present (empty when the real node left nothing behind). */
export async function leftoverChains(): Promise<string[]> {
  const left: string[] = [];
  for (const family of ["iptables", "ip6tables"]) {
    const { stdout } = await run(`${family}-save`).catch(() => ({ stdout: "" }));
    for (const line of stdout.split("\n")) {
      const chain = line.startsWith(":") ? (line.slice(1).split(" ")[0] ?? "") : "";
      if (ownedChainPrefixes.some((p) => chain.startsWith(p))) left.push(`${family} ${chain}`);
    }
  }
  return left;
}

const netnsDir = "/run/netns";

/** Network namespaces holding an address of the pod network (left by pods containerd did not tear down). */
export async function podNetworkNamespaces(): Promise<string[]> {
  const names = await readdir(netnsDir).catch(() => [] as string[]);
  const ours: string[] = [];
  for (const name of names) {
    const { stdout } = await ip("-n", name, "-4", "-o", "addr").catch(() => ({ stdout: "" }));
    if (stdout.includes(` ${podCidr.split(".").slice(0, 3).join(".")}.`)) ours.push(name);
  }
  return ours;
}

/** Deletes leftover pod network namespaces (their veths go with them), then the bridge. */
export async function removeNetwork(): Promise<void> {
  for (const name of await podNetworkNamespaces()) await ip("netns", "delete", name).catch(() => {});
  if (await linkExists(bridgeName)) await ip("link", "delete", bridgeName);
}

/** Network devices of the real node still present: the bridge and veths attached to it. */
export async function leftoverDevices(): Promise<string[]> {
  const { stdout } = await ip("-o", "link", "show").catch(() => ({ stdout: "" }));
  return stdout
    .split("\n")
    .filter((line) => line.includes(` ${bridgeName}:`) || line.includes(`master ${bridgeName} `))
    .map((line) => line.split(":")[1]?.trim() ?? line);
}
