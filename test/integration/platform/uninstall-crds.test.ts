/**
 * `slipway uninstall` on the real API server (issue #29 item 11): the CRDs stay while another
 * namespace holds objects of them (the output counts them per kind), and the objects that go with
 * the uninstalled namespace are finalized, or their finalizers cleared, before the operator goes,
 * so no finalizer holds the namespace (or a CRD) until the timeout.
 */
import { randomBytes } from "node:crypto";
import { ApiextensionsV1Api, CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { beforeAll, describe, expect, inject, it, onTestFinished } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { ProviderKind } from "../../../src/apis/pipelines/provider.ts";
import { slipway } from "../../support/cli.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";

const cli = (namespace: string, ...args: string[]) =>
  slipway([...args, "--kubeconfig", inject("kubeconfig"), "-n", namespace]);

const core = () => adminConfig().makeApiClient(CoreV1Api);
const custom = () => adminConfig().makeApiClient(CustomObjectsApi);

const build = (name: string, finalizers?: string[]) => ({
  apiVersion: ImageBuildKind.apiVersion,
  kind: ImageBuildKind.kind,
  metadata: { name, ...(finalizers ? { finalizers } : {}) },
  spec: { project: "fraud", name: "scorer", version: "v1", artifactUri: "s3://artifacts/fraud/scorer" },
});

const createBuild = (namespace: string, name: string, finalizers?: string[]) =>
  custom().createNamespacedCustomObject({
    group: ImageBuildKind.group,
    version: ImageBuildKind.version,
    plural: ImageBuildKind.plural,
    namespace,
    body: build(name, finalizers),
  });

/** A namespace `install` creates (so uninstall deletes it), removed after the test whatever happens. */
function freshNamespace(): string {
  const namespace = `fresh-${randomBytes(4).toString("hex")}`;
  onTestFinished(() =>
    core()
      .deleteNamespace({ name: namespace })
      .then(
        () => undefined,
        () => undefined,
      ),
  );
  return namespace;
}

describe("uninstall and the CRDs", () => {
  beforeAll(() => installCrds([ImageBuildKind, ProviderKind]));

  it("keeps the CRDs while another namespace holds objects of them, counting them per kind", {
    timeout: 300_000,
  }, async () => {
    const other = await testNamespace("held");
    await createBuild(other, "a");
    await createBuild(other, "b");
    const namespace = freshNamespace();
    const install = await cli(namespace, "install", "--dev", "--no-wait");
    expect(install.code, install.stderr).toBe(0);

    // the namespace controller of the shared plane deletes every file's namespaces: under load it takes a while
    const uninstall = await cli(namespace, "uninstall", "--yes", "--timeout", "180s");
    expect(uninstall.code, uninstall.stderr).toBe(0);
    expect(uninstall.stdout).toContain("kept the CRDs: other namespaces hold objects of them (");
    expect(uninstall.stdout).toMatch(new RegExp(`ImageBuild: \\d+ \\([^)]*${other} 2`));
    expect(uninstall.stdout).toContain("--delete-crds deletes them");
    expect(uninstall.stdout).toContain(`removed namespace ${namespace}`);
    const crd = await adminConfig()
      .makeApiClient(ApiextensionsV1Api)
      .readCustomResourceDefinition({ name: `${ImageBuildKind.plural}.${ImageBuildKind.group}` });
    expect(crd.metadata?.deletionTimestamp).toBeUndefined();
    const left = (await custom().listNamespacedCustomObject({
      group: ImageBuildKind.group,
      version: ImageBuildKind.version,
      plural: ImageBuildKind.plural,
      namespace: other,
    })) as { items: unknown[] };
    expect(left.items).toHaveLength(2);

    const both = await cli(namespace, "uninstall", "--yes", "--keep-crds", "--delete-crds");
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain("--keep-crds and --delete-crds: pick one");
  });

  it("clears a finalizer nobody processes before the operator goes: the namespace is gone within the uninstall's timeout", {
    timeout: 300_000,
  }, async () => {
    const namespace = freshNamespace();
    const install = await cli(namespace, "install", "--dev", "--no-wait");
    expect(install.code, install.stderr).toBe(0);
    await createBuild(namespace, "held", ["example.org/never"]);

    const uninstall = await cli(
      namespace,
      "uninstall",
      "--yes",
      "--keep-crds",
      // the namespace controller of the shared plane deletes every file's namespaces: under load it takes a while
      "--timeout",
      "180s",
      "--finalizer-wait",
      "1s",
    );
    expect(uninstall.code, uninstall.stderr).toBe(0);
    expect(uninstall.stdout).toContain(
      `cleared the finalizers the operator did not process: ImageBuild ${namespace}/held`,
    );
    expect(uninstall.stdout).toContain(`removed namespace ${namespace}`);
    const names = (await core().listNamespace()).items.map((n) => n.metadata?.name);
    expect(names).not.toContain(namespace);
  });
});
