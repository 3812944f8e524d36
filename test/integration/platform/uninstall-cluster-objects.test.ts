/**
 * `slipway install -n NS` (the operator in the cluster; kwok runs its pod, nothing reconciles) applies
 * the release bundle's cluster-wide objects named after NS, the operator's priority level and
 * FlowSchema (for NS's operator ServiceAccount) among them; `slipway uninstall` removes every one.
 */
import { randomBytes } from "node:crypto";
import { CoreV1Api, type KubernetesObject, KubernetesObjectApi } from "@kubernetes/client-node";
import { describe, expect, inject, it, onTestFinished } from "vitest";
import { toClientModel } from "../../../src/apis/wire.ts";
import type { BundleObject } from "../../../src/bundle/bundle.ts";
import { releaseBundle } from "../../../src/bundle/release.ts";
import { slipway } from "../../support/cli.ts";
import { adminConfig } from "../../support/cluster.ts";

// biome-ignore lint/suspicious/noExplicitAny: test drills into objects read back
type Any = any;

const cli = (namespace: string, ...args: string[]) =>
  slipway([...args, "--kubeconfig", inject("kubeconfig"), "-n", namespace]);

/** The object as the API server holds it; undefined when it does not. */
async function live(object: BundleObject): Promise<Any | undefined> {
  const api = KubernetesObjectApi.makeApiClient(adminConfig());
  return api.read(toClientModel<KubernetesObject & { metadata: { name: string } }>(object)).catch((error) => {
    if ((error as { code?: number }).code === 404) return undefined;
    throw error;
  });
}

describe("install and uninstall of the operator's cluster-wide objects", { timeout: 300_000 }, () => {
  it("install -n NS applies them named after NS (the FlowSchema's subject NS's operator); uninstall removes every one", async () => {
    const namespace = `apfinst-${randomBytes(4).toString("hex")}`;
    const clusterWide = releaseBundle(namespace).filter(
      (o) => !o.metadata?.namespace && o.kind !== "Namespace" && o.kind !== "CustomResourceDefinition",
    );
    onTestFinished(async () => {
      // what a failed uninstall would leave on the shared control plane
      const api = KubernetesObjectApi.makeApiClient(adminConfig());
      for (const object of clusterWide) await api.delete(toClientModel(object)).catch(() => {});
      await adminConfig()
        .makeApiClient(CoreV1Api)
        .deleteNamespace({ name: namespace })
        .catch(() => {});
    });
    expect(clusterWide.map((o) => o.kind)).toEqual(
      expect.arrayContaining(["ClusterRoleBinding", "FlowSchema", "PriorityLevelConfiguration"]),
    );

    const install = await cli(namespace, "install", "--no-wait");
    expect(install.code, install.stderr).toBe(0);
    for (const object of clusterWide)
      expect(await live(object), `${object.kind} ${object.metadata?.name}`).toBeDefined();
    const schema = await live(clusterWide.find((o) => o.kind === "FlowSchema") as BundleObject);
    expect(schema.metadata.name).toBe(`slipway-operator-${namespace}`);
    expect(schema.spec.priorityLevelConfiguration.name).toBe(`slipway-operator-${namespace}`);
    expect(schema.spec.rules[0].subjects).toEqual([
      { kind: "ServiceAccount", serviceAccount: { name: "slipway-operator", namespace } },
    ]);

    const uninstall = await cli(namespace, "uninstall", "--yes", "--keep-crds", "--timeout", "180s");
    expect(uninstall.code, uninstall.stderr).toBe(0);
    expect(uninstall.stdout).toContain(`removed namespace ${namespace}`);
    const left = [];
    for (const object of clusterWide)
      if (await live(object)) left.push(`${object.kind}/${object.metadata?.name}`);
    expect(left).toEqual([]);
  });
});
