import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import type { V1PodList } from "@kubernetes/client-node";
import { nodeType, podType } from "../../kube/core-types.ts";
import { resourcePath } from "../../kube/keys.ts";
import { withDevClient } from "../dev-client.ts";
import { realNodeName } from "./config.ts";

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Cordons the real node and deletes its pods, then waits (bounded) until the kubelet has stopped them:
 * their sandboxes' networks and namespaces are torn down by containerd through CNI, as on any node.
 */
export async function drainRealNode(kubeconfig: string, timeoutMs = 30_000): Promise<void> {
  await withDevClient(kubeconfig, async ({ rest }) => {
    await rest.request("PATCH", resourcePath(nodeType, { name: realNodeName }), {
      contentType: "application/merge-patch+json",
      body: { spec: { unschedulable: true } },
    });
    const onNode = async () =>
      (
        await rest.request<V1PodList>("GET", resourcePath(podType), {
          query: { fieldSelector: `spec.nodeName=${realNodeName}` },
        })
      ).items;
    for (const pod of await onNode()) {
      const { name = "", namespace = "" } = pod.metadata ?? {};
      await rest
        .request("DELETE", resourcePath(podType, { namespace, name }), { query: { gracePeriodSeconds: 1 } })
        .catch(() => {});
    }
    const deadline = Date.now() + timeoutMs;
    while ((await onNode()).length > 0 && Date.now() < deadline) await sleep(250);
  });
}

/**
 * How long ctr waits to reach containerd. One that is gone (an abandoned node's, its socket file left
 * behind) never answers, and ctr's default waited 10 s for each command: 20 s of clearing an
 * abandoned node.
 */
const ctrConnectTimeout = "3s";

/** Kills and deletes whatever task and container containerd still has (what the kubelet did not stop). */
export async function removeContainers(socket: string): Promise<void> {
  if (!existsSync(socket)) return; // no containerd listens: it holds nothing
  const ctr = (...args: string[]) =>
    run("ctr", ["--address", socket, "--connect-timeout", ctrConnectTimeout, "-n", "k8s.io", ...args]);
  const ids = async (kind: string) => (await ctr(kind, "ls", "-q")).stdout.split("\n").filter(Boolean);
  let tasks: string[];
  try {
    tasks = await ids("tasks");
  } catch {
    return; // containerd does not answer: nothing to remove through it (the shims are killed next)
  }
  for (const id of tasks) {
    await ctr("tasks", "kill", "-s", "SIGKILL", id).catch(() => {});
    await ctr("tasks", "delete", "-f", id).catch(() => {});
  }
  for (const id of await ids("containers").catch(() => []))
    await ctr("containers", "delete", id).catch(() => {});
}

/** PIDs of containerd shims serving the containerd at `socket` (they outlive containerd). */
export function shimPids(socket: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (argv[0]?.includes("containerd-shim") && argv.includes(socket)) pids.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return pids;
}

export async function killShims(socket: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let pids = shimPids(socket);
  while (pids.length > 0 && Date.now() < deadline) {
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    await sleep(100);
    pids = shimPids(socket);
  }
}

/** Mount points under `root` from /proc/self/mountinfo, deepest first (the order to unmount them). Pure. */
export function mountsUnder(mountinfo: string, root: string): string[] {
  const prefix = root.endsWith("/") ? root : `${root}/`;
  const unescapeOctal = (path: string) =>
    path.replace(/\\([0-7]{3})/g, (_, octal) => String.fromCharCode(Number.parseInt(octal, 8)));
  const points = mountinfo
    .split("\n")
    .map((line) => unescapeOctal(line.split(" ")[4] ?? ""))
    .filter((point) => point === root || point.startsWith(prefix));
  return [...new Set(points)].sort((a, b) => b.split("/").length - a.split("/").length || b.localeCompare(a));
}

/** Unmounts everything containerd and the kubelet mounted under `root` (bounded: a few passes). */
export async function unmountUnder(root: string): Promise<string[]> {
  for (let pass = 0; pass < 5; pass++) {
    const points = mountsUnder(await readFile("/proc/self/mountinfo", "utf8"), root);
    if (points.length === 0) return [];
    for (const point of points)
      await run("umount", [point]).catch(() => run("umount", ["-l", point]).catch(() => {}));
  }
  return mountsUnder(await readFile("/proc/self/mountinfo", "utf8"), root);
}
