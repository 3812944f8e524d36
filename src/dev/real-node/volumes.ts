import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { CoreV1Api, type KubeConfig, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { realNodeLabel } from "./config.ts";

/**
 * Makes the real node's Released hostPath volumes Available again, emptied: their claims were deleted
 * (a test's namespace went away) and the Retain policy keeps a PV from being reused on its own, so a
 * control plane kept between test runs would otherwise run out. Returns the names it freed.
 */
export async function freeReleasedVolumes(config: KubeConfig): Promise<string[]> {
  const core = config.makeApiClient(CoreV1Api);
  const volumes = await core.listPersistentVolume({ labelSelector: `${realNodeLabel}=true` });
  const freed: string[] = [];
  for (const pv of volumes.items) {
    const path = pv.spec?.hostPath?.path;
    const name = pv.metadata?.name;
    if (pv.status?.phase !== "Released" || !path || !name) continue;
    for (const entry of await readdir(path).catch(() => [] as string[]))
      await rm(join(path, entry), { recursive: true, force: true });
    await core.patchPersistentVolume(
      { name, body: [{ op: "remove", path: "/spec/claimRef" }] },
      setHeaderOptions("Content-Type", PatchStrategy.JsonPatch),
    );
    freed.push(name);
  }
  return freed;
}
