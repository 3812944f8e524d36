import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * One real node per machine: kube-proxy's iptables chains, the bridge and the pod network are global.
 * The dev directory that runs it holds this claim (under /run, so a reboot clears it). A claim whose
 * directory has no state file any more is stale (the directory was removed without `dev down`).
 */
const claimDir = "/run/slipway";
const claimFile = join(claimDir, "real-node.json");

/** The dev directory whose real node runs on this machine, if any. */
export async function realNodeHolder(): Promise<string | undefined> {
  const text = await readFile(claimFile, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  const dir = (JSON.parse(text) as { dir?: string }).dir;
  return dir && existsSync(join(dir, "state.json")) ? dir : undefined;
}

/** Takes the claim for `dir`; returns the other holder's directory when it is taken. */
export async function claimRealNode(dir: string): Promise<{ ok: true } | { ok: false; holder: string }> {
  const holder = await realNodeHolder();
  if (holder && holder !== dir) return { ok: false, holder };
  await mkdir(claimDir, { recursive: true });
  if (!holder) await rm(claimFile, { force: true });
  try {
    await writeFile(claimFile, `${JSON.stringify({ dir })}\n`, { flag: holder ? "w" : "wx" });
    return { ok: true };
  } catch (error) {
    // another `up` took it between the check and the write
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return { ok: false, holder: (await realNodeHolder()) ?? "another dev directory" };
  }
}

/** Gives the claim back (only if `dir` holds it). */
export async function releaseRealNode(dir: string): Promise<void> {
  const text = await readFile(claimFile, "utf8").catch(() => undefined);
  if (text && (JSON.parse(text) as { dir?: string }).dir === dir) await rm(claimFile, { force: true });
}
