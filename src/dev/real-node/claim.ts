import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isRunning, processStartTime } from "../processes.ts";
import { type DevState, readState } from "../state.ts";

/**
 * One real node per machine: kube-proxy's iptables chains, the bridge and the pod network are global.
 * The dev directory that runs it holds this claim (under /run, so a reboot clears it). A claim whose
 * directory has no state file any more is stale (the directory was removed without `dev down`).
 */
const claimDir = "/run/slipway";
export const claimFile = join(claimDir, "real-node.json");

/** Who took the claim: the dev directory, and the process that took it (PID and start time). */
export interface RealNodeClaim {
  dir: string;
  pid?: number;
  started?: string;
}

async function readClaim(): Promise<RealNodeClaim | undefined> {
  const text = await readFile(claimFile, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  const claim = JSON.parse(text) as Partial<RealNodeClaim>;
  return claim.dir ? (claim as RealNodeClaim) : undefined;
}

/** The dev directory whose real node runs on this machine, if any. */
export async function realNodeHolder(): Promise<string | undefined> {
  const claim = await readClaim();
  return claim && existsSync(join(claim.dir, "state.json")) ? claim.dir : undefined;
}

/**
 * A claim is abandoned when the process that took it is gone and none of its directory's processes
 * runs: its `up` was killed, or the machine's session ended, without `dev down`. Its bridge, iptables
 * chains and pod network namespaces may still be there. A claim taken by a live process (an `up`
 * between claiming and starting the node's processes) or with a running process is never abandoned.
 */
export function isAbandoned(
  claim: RealNodeClaim,
  state: Pick<DevState, "processes">,
  alive: {
    startTime: (pid: number) => string | undefined;
    running: (p: DevState["processes"][number]) => boolean;
  },
): boolean {
  const claimerAlive = claim.pid !== undefined && alive.startTime(claim.pid) === claim.started;
  return !claimerAlive && !state.processes.some((p) => alive.running(p));
}

/** The holder's directory and state when its claim is abandoned (see isAbandoned). */
export async function abandonedRealNode(): Promise<{ dir: string; state: DevState } | undefined> {
  const claim = await readClaim();
  const state = claim && (await readState(claim.dir));
  if (!claim || !state) return undefined;
  return isAbandoned(claim, state, { startTime: processStartTime, running: isRunning })
    ? { dir: claim.dir, state }
    : undefined;
}

/** Takes the claim for `dir`; returns the other holder's directory when it is taken. */
export async function claimRealNode(dir: string): Promise<{ ok: true } | { ok: false; holder: string }> {
  const holder = await realNodeHolder();
  if (holder && holder !== dir) return { ok: false, holder };
  await mkdir(claimDir, { recursive: true });
  if (!holder) await rm(claimFile, { force: true });
  const claim: RealNodeClaim = { dir, pid: process.pid, started: processStartTime(process.pid) ?? "" };
  try {
    await writeFile(claimFile, `${JSON.stringify(claim)}\n`, { flag: holder ? "w" : "wx" });
    return { ok: true };
  } catch (error) {
    // another `up` took it between the check and the write
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return { ok: false, holder: (await realNodeHolder()) ?? "another dev directory" };
  }
}

/** Gives the claim back (only if `dir` holds it). */
export async function releaseRealNode(dir: string): Promise<void> {
  if ((await readClaim())?.dir === dir) await rm(claimFile, { force: true });
}
