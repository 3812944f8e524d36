/**
 * Slipway's CRDs applied to a test or benchmark control plane for the kinds a process needs (server-side
 * apply, forced: the generated schema is the truth), waiting until each is Established, so that a
 * first object of it is not refused. With Slipway's own REST client (src/kube/), not client-node's.
 */
import { crdManifest } from "../../../src/apis/crd.ts";
import type { Kind } from "../../../src/apis/kind.ts";
import { crdName } from "../../../src/apis/kind.ts";
import { crdType } from "../../../src/kube/core-types.ts";
import { resourcePath } from "../../../src/kube/keys.ts";
import { loadClusterAccess } from "../../../src/kube/kubeconfig.ts";
import { RestClient } from "../../../src/kube/rest.ts";

type Crd = { status?: { conditions?: { type: string; status: string }[] } };

/** True when the CRD's status says Established. */
export const established = (crd: Crd | undefined): boolean =>
  crd?.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ?? false;

/** Applies the CRDs of `kinds` to the cluster of `kubeconfig` as `fieldManager`; resolves once all are Established (30 s at most). */
export async function applyCrds(
  kubeconfig: string,
  kinds: Kind[],
  fieldManager = "slipway-dev",
): Promise<void> {
  const rest = new RestClient(await loadClusterAccess({ kubeconfig }), { userAgent: fieldManager });
  try {
    const names = kinds.map(crdName);
    for (const kind of kinds)
      await rest.request("PATCH", resourcePath(crdType, { name: crdName(kind) }), {
        query: { fieldManager, force: true },
        body: crdManifest(kind),
        contentType: "application/apply-patch+yaml",
      });
    const deadline = Date.now() + 30_000;
    for (const name of names) {
      while (!established(await rest.request<Crd>("GET", resourcePath(crdType, { name })))) {
        if (Date.now() > deadline) throw new Error(`CRD ${name} did not become Established within 30s`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  } finally {
    rest.close();
  }
}
