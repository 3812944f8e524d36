/**
 * Slipway's CRDs applied to a test or benchmark control plane for the kinds a process needs (server-side
 * apply, forced: the generated schema is the truth), waiting until each is Established, so that a
 * first object of it is not refused. With Slipway's own REST client (src/kube/), not client-node's.
 *
 * A process applies a CRD once per control plane and manifest: a worker runs one test file after
 * another in one module graph, and 67 files ask for their kinds. Each apply of a CRD, even one that
 * changes nothing, costs the API server a server-side apply of its whole schema (about a tenth of its
 * CPU in a test run, profiled); a read from its watch cache confirming the CRD is the one applied
 * (same uid and generation) costs little.
 */
import { crdManifest } from "../../../src/apis/crd.ts";
import type { Kind } from "../../../src/apis/kind.ts";
import { crdName } from "../../../src/apis/kind.ts";
import { crdType } from "../../../src/kube/core-types.ts";
import { resourcePath } from "../../../src/kube/keys.ts";
import { loadClusterAccess } from "../../../src/kube/kubeconfig.ts";
import { RestClient } from "../../../src/kube/rest.ts";

type Crd = {
  metadata?: { uid?: string; generation?: number };
  status?: { conditions?: { type: string; status: string }[] };
};

/** Per control plane (kubeconfig) and CRD: the manifest this process applied, and the CRD it became once Established. */
const applied = new Map<
  string,
  { manifest: string; uid: string | undefined; generation: number | undefined }
>();

/** True when the CRD's status says Established. */
export const established = (crd: Crd | undefined): boolean =>
  crd?.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ?? false;

/** Reads CRD `name` with `read` every 200 ms until it is Established, until `deadline`; answers it. */
export async function untilEstablished<T extends Crd>(
  name: string,
  read: () => Promise<T | undefined>,
  deadline: number,
): Promise<T> {
  for (;;) {
    const crd = await read();
    if (crd && established(crd)) return crd;
    if (Date.now() > deadline) throw new Error(`CRD ${name} did not become Established in time`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Applies the CRDs of `kinds` to the cluster of `kubeconfig` as `fieldManager`; resolves once all are Established (30 s at most). */
export async function applyCrds(
  kubeconfig: string,
  kinds: Kind[],
  fieldManager = "slipway-dev",
): Promise<void> {
  const rest = new RestClient(await loadClusterAccess({ kubeconfig }), { userAgent: fieldManager });
  const key = (name: string) => `${kubeconfig}\n${name}`;
  try {
    const pending: { name: string; manifest: string }[] = [];
    for (const kind of kinds) {
      const name = crdName(kind);
      const manifest = JSON.stringify(crdManifest(kind));
      const before = applied.get(key(name));
      if (before?.manifest === manifest) {
        const live = await rest
          .request<Crd>("GET", resourcePath(crdType, { name }), { query: { resourceVersion: "0" } })
          .catch(() => undefined);
        const same = live !== undefined && live.metadata?.uid === before.uid;
        if (same && live.metadata?.generation === before.generation) continue;
      }
      applied.delete(key(name));
      await rest.request("PATCH", resourcePath(crdType, { name }), {
        query: { fieldManager, force: true },
        body: manifest,
        contentType: "application/apply-patch+yaml",
      });
      pending.push({ name, manifest });
    }
    const deadline = Date.now() + 30_000;
    for (const { name, manifest } of pending) {
      const crd = await untilEstablished(
        name,
        () => rest.request<Crd>("GET", resourcePath(crdType, { name })),
        deadline,
      );
      applied.set(key(name), { manifest, uid: crd.metadata?.uid, generation: crd.metadata?.generation });
    }
  } finally {
    rest.close();
  }
}
