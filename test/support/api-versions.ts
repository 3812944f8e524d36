/** The previous release's API versions, for tests of the move to v1beta1 on a control plane of their own. */
import { type CrdManifest, crdManifest } from "../../src/apis/crd.ts";
import { crdName, type Kind } from "../../src/apis/kind.ts";
import { crdType } from "../../src/kube/core-types.ts";
import { resourcePath } from "../../src/kube/keys.ts";
import type { RestClient } from "../../src/kube/rest.ts";
import { eventually } from "./cluster.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

/** The previous release's CRD of a kind: v1alpha1 alone, served and stored. */
export function previousCrd(kind: Kind): CrdManifest {
  const manifest = crdManifest(kind);
  const alpha = manifest.spec.versions.find((version) => version.name === "v1alpha1");
  if (!alpha) throw new Error(`${kind.kind} is not served at v1alpha1`);
  return { ...manifest, spec: { ...manifest.spec, versions: [{ ...alpha, storage: true }] } };
}

/** CRD reads and writes of a test's own control plane, as the installer makes them. */
export function crdsOf(rest: Pick<RestClient, "request">) {
  const crd = (kind: Kind): Promise<Any> =>
    rest.request("GET", resourcePath(crdType, { name: crdName(kind) }));
  return {
    crd,
    /** Server-side apply of a CRD manifest under the installer's field manager. */
    apply: (manifest: CrdManifest) =>
      rest.request("PATCH", resourcePath(crdType, { name: manifest.metadata?.name }), {
        query: { fieldManager: "slipway-install", force: true },
        body: manifest,
        contentType: "application/apply-patch+yaml",
      }),
    /** Waits until the kind's CRD is Established. */
    established: (kind: Kind) =>
      eventually(
        `CRD ${kind.plural} Established`,
        () => crd(kind),
        (c) => c.status?.conditions?.some((x: Any) => x.type === "Established" && x.status === "True"),
        30_000,
      ),
  };
}
