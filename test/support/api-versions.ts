/** The previous release's API versions, for tests of the move to v1beta1 on a control plane of their own. */
import { type CrdManifest, crdManifest } from "../../src/apis/crd.ts";
import type { Kind } from "../../src/apis/kind.ts";

/** The previous release's CRD of a kind: v1alpha1 alone, served and stored. */
export function previousCrd(kind: Kind): CrdManifest {
  const manifest = crdManifest(kind);
  const alpha = manifest.spec.versions.find((version) => version.name === "v1alpha1");
  if (!alpha) throw new Error(`${kind.kind} is not served at v1alpha1`);
  return { ...manifest, spec: { ...manifest.spec, versions: [{ ...alpha, storage: true }] } };
}
