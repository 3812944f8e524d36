/** The release bundle's operator objects are accepted by the real API server and the Deployment rolls out (kwok runs its pod). */
import {
  AppsV1Api,
  type KubernetesObject,
  KubernetesObjectApi,
  PatchStrategy,
} from "@kubernetes/client-node";
import { describe, expect, it, onTestFinished } from "vitest";
import { toClientModel } from "../../../src/apis/wire.ts";
import { operatorName } from "../../../src/bundle/bundle.ts";
import { releaseBundle } from "../../../src/bundle/release.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";

describe("the release bundle", () => {
  it("applies into a namespace and its operator Deployment becomes Available", async () => {
    const namespace = await testNamespace("bundle");
    const api = KubernetesObjectApi.makeApiClient(adminConfig());
    // CRDs are covered by crds.test.ts; here the objects the bundle places in the namespace.
    const objects = releaseBundle(namespace).filter((o) => o.kind !== "CustomResourceDefinition");
    onTestFinished(async () => {
      // the namespace goes with the test; the bundle's cluster-wide objects are removed here
      const clusterWide = objects.filter((o) => !o.metadata?.namespace);
      for (const object of clusterWide) await api.delete(toClientModel(object)).catch(() => {});
    });
    for (const object of objects) {
      await api.patch(
        toClientModel<KubernetesObject>(object),
        undefined,
        undefined,
        "bundle-test",
        true,
        PatchStrategy.ServerSideApply,
      );
    }
    const deployment = await eventually(
      "the operator Deployment Available",
      () =>
        adminConfig().makeApiClient(AppsV1Api).readNamespacedDeployment({ name: operatorName, namespace }),
      (d) => d.status?.conditions?.some((c) => c.type === "Available" && c.status === "True") ?? false,
      60_000,
    );
    const container = deployment.spec?.template.spec?.containers[0];
    expect(container?.securityContext?.readOnlyRootFilesystem).toBe(true);
    expect(container?.readinessProbe?.httpGet?.path).toBe("/readyz");
  });
});
