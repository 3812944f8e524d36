/**
 * The committed release bundle applies as users apply release manifests: `kubectl apply -f
 * deploy/slipway.yaml`, nothing else. On a control plane of its own, since it installs CRDs the
 * other tests share (Argo's minimal ones would replace the full-schema ones they validate against).
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { KubernetesObjectApi } from "@kubernetes/client-node";
import { describe, expect, it, onTestFinished } from "vitest";
import { defaultNamespace, operatorName } from "../../src/bundle/bundle.ts";
import { binaryPaths } from "../../src/dev/binaries.ts";
import { privateControlPlane } from "../../src/dev/cluster.ts";
import { packageRoot } from "../../src/dev/paths.ts";
import { bundlePath } from "../../tools/gen/files.ts";
import { eventually } from "../support/cluster.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;
const exec = promisify(execFile);

describe("deploy/slipway.yaml", () => {
  it("applies with plain kubectl apply -f: namespace slipway, the operator, its RBAC, Slipway's and the workflow engine's CRDs", {
    timeout: 300_000,
  }, async () => {
    const plane = await privateControlPlane("slipway-bundle-");
    onTestFinished(() => plane.stop());
    const kubectl = (...args: string[]) =>
      exec(binaryPaths().kubectl, ["--kubeconfig", plane.kubeconfig, ...args], { maxBuffer: 16 << 20 });

    const applied = await kubectl("apply", "-f", join(packageRoot, bundlePath));
    expect(applied.stdout).toContain(`namespace/${defaultNamespace} created`);

    const api = KubernetesObjectApi.makeApiClient(plane.kubeConfig);
    const read = (apiVersion: string, kind: string, namespace: string | undefined, name: string) =>
      api.read({ apiVersion, kind, metadata: { name, namespace } }) as Promise<Any>;
    const deployment = await read("apps/v1", "Deployment", defaultNamespace, operatorName);
    expect(deployment.spec.template.spec.containers[0].args).toContain("--namespaces=$(POD_NAMESPACE)");
    const rbac = "rbac.authorization.k8s.io/v1";
    const binding = await read(rbac, "RoleBinding", defaultNamespace, operatorName);
    expect(binding.subjects).toEqual([
      { kind: "ServiceAccount", name: operatorName, namespace: defaultNamespace },
    ]);
    const apiServer = await read(
      rbac,
      "ClusterRoleBinding",
      undefined,
      `slipway-api-server-${defaultNamespace}`,
    );
    expect(apiServer.subjects[0].namespace).toBe(defaultNamespace);
    for (const name of [
      "platforms.platform.slipway.dev",
      "workflowtemplates.argoproj.io",
      "workflows.argoproj.io",
    ]) {
      await eventually(
        `CRD ${name} Established`,
        () => read("apiextensions.k8s.io/v1", "CustomResourceDefinition", undefined, name),
        (crd) => crd.status?.conditions?.some((c: Any) => c.type === "Established" && c.status === "True"),
        30_000,
      );
    }
    // a second apply changes nothing
    const again = await kubectl("apply", "-f", join(packageRoot, bundlePath));
    expect(again.stdout).not.toMatch(/ (created|configured)$/m);
  });
});
