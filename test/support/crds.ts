import { KubernetesObjectApi, PatchStrategy } from "@kubernetes/client-node";
import { toCrd } from "../../src/apis/crd.ts";
import type { Kind } from "../../src/apis/kind.ts";
import { adminConfig, eventually } from "./cluster.ts";

/**
 * Server-side applies the generated CRDs of `kinds` to the test control plane and waits until each
 * is Established. Idempotent, so every test file can call it for the kinds it uses.
 */
export async function installCrds(kinds: Kind[]): Promise<void> {
  const api = KubernetesObjectApi.makeApiClient(adminConfig());
  for (const kind of kinds) {
    const crd = toCrd(kind);
    await api.patch(crd, undefined, undefined, "slipway-tests", true, PatchStrategy.ServerSideApply);
  }
  for (const kind of kinds) {
    const name = `${kind.plural}.${kind.group}`;
    await eventually(
      `CRD ${name} Established`,
      () =>
        api.read({
          apiVersion: "apiextensions.k8s.io/v1",
          kind: "CustomResourceDefinition",
          metadata: { name },
        }) as Promise<{ status?: { conditions?: { type: string; status: string }[] } }>,
      (crd) => crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ?? false,
      30_000,
    );
  }
}
