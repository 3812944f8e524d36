import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { KubeConfig, V1PersistentVolumeList } from "@kubernetes/client-node";
import { resourcePath } from "../../kube/keys.ts";
import type { ResourceType } from "../../kube/types.ts";
import { withDevClient } from "../dev-client.ts";
import { realNodeLabel } from "./config.ts";

const persistentVolumeType: ResourceType = {
  group: "",
  version: "v1",
  kind: "PersistentVolume",
  plural: "persistentvolumes",
  namespaced: false,
};

/**
 * Makes the real node's Released hostPath volumes Available again, emptied: their claims were deleted
 * (a test's namespace went away) and the Retain policy keeps a PV from being reused on its own, so a
 * control plane kept between test runs would otherwise run out. Returns the names it freed.
 */
export async function freeReleasedVolumes(config: KubeConfig): Promise<string[]> {
  return withDevClient(config, async ({ rest }) => {
    const volumes = await rest.request<V1PersistentVolumeList>("GET", resourcePath(persistentVolumeType), {
      query: { labelSelector: `${realNodeLabel}=true` },
    });
    const freed: string[] = [];
    for (const pv of volumes.items) {
      const path = pv.spec?.hostPath?.path;
      const name = pv.metadata?.name;
      if (pv.status?.phase !== "Released" || !path || !name) continue;
      for (const entry of await readdir(path).catch(() => [] as string[]))
        await rm(join(path, entry), { recursive: true, force: true });
      await rest.request("PATCH", resourcePath(persistentVolumeType, { name }), {
        contentType: "application/json-patch+json",
        body: [{ op: "remove", path: "/spec/claimRef" }],
      });
      freed.push(name);
    }
    return freed;
  });
}
