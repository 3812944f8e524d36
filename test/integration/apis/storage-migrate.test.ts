/**
 * `slipway storage migrate` on a real API server: an operator that serves one namespace rewrites its
 * objects and keeps the CRDs' storedVersions (it cannot list the others); the command, with the
 * installer's rights, rewrites those of every namespace and trims storedVersions to v1beta1. An
 * object of a namespace the operator does not serve, stored at v1alpha1, reads back at both versions
 * unchanged. With the operator's own token the command is refused, in one line naming the right it
 * lacks. On a control plane of its own: it replaces the CRDs every other test shares.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { type KubernetesObject, KubernetesObjectApi, PatchStrategy } from "@kubernetes/client-node";
import pino from "pino";
import { describe, expect, it, onTestFinished } from "vitest";
import type { CrdManifest } from "../../../src/apis/crd.ts";
import { crdManifest } from "../../../src/apis/crd.ts";
import { allKinds } from "../../../src/apis/index.ts";
import { crdName, type Kind, resourceTypeOf } from "../../../src/apis/kind.ts";
import { RunKind } from "../../../src/apis/pipelines/run.ts";
import { conversionPath } from "../../../src/apis/versions.ts";
import { toClientModel } from "../../../src/apis/wire.ts";
import { operatorName } from "../../../src/bundle/bundle.ts";
import { releaseBundle } from "../../../src/bundle/release.ts";
import { crdConversionAt, webhookServiceName } from "../../../src/bundle/webhook.ts";
import { privateControlPlane } from "../../../src/dev/cluster.ts";
import { freePorts } from "../../../src/dev/ports.ts";
import { crdType } from "../../../src/kube/core-types.ts";
import { resourcePath } from "../../../src/kube/keys.ts";
import { loadClusterAccess } from "../../../src/kube/kubeconfig.ts";
import { RestClient } from "../../../src/kube/rest.ts";
import { runOperator } from "../../../src/operator/main.ts";
import { previousCrd } from "../../support/api-versions.ts";
import { slipway } from "../../support/cli.ts";
import { eventually } from "../../support/cluster.ts";
import { writeServiceAccountKubeconfig } from "../../support/service-account.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;
const served = "team";
const other = "elsewhere";
const operatorNamespace = "slipway";

const path = (version: string, namespace: string, name?: string, subresource?: string) =>
  resourcePath({ ...resourceTypeOf(RunKind), version }, { namespace, name, subresource });

/** What the migration may change of an object: its resourceVersion (rewritten) and the record of who wrote it. */
const content = (object: Any) => {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = object.metadata;
  return { ...object, metadata };
};

describe("slipway storage migrate", () => {
  it("trims storedVersions an operator of one namespace keeps: objects of other namespaces rewritten, read back at both versions unchanged", {
    timeout: 300_000,
  }, async () => {
    const plane = await privateControlPlane("slipway-storage-");
    onTestFinished(() => plane.stop());
    const admin = new RestClient(await loadClusterAccess({ kubeconfig: plane.kubeconfig }));
    onTestFinished(() => admin.close());
    const applyCrd = (crd: CrdManifest) =>
      admin.request("PATCH", resourcePath(crdType, { name: crd.metadata?.name }), {
        query: { fieldManager: "slipway-install", force: true },
        body: crd,
        contentType: "application/apply-patch+yaml",
      });
    const crd = (kind: Kind): Promise<Any> =>
      admin.request("GET", resourcePath(crdType, { name: crdName(kind) }));
    const established = (kind: Kind) =>
      eventually(
        `CRD ${kind.plural} Established`,
        () => crd(kind),
        (c) => c.status?.conditions?.some((x: Any) => x.type === "Established" && x.status === "True"),
        30_000,
      );

    // the previous release: a Run in each namespace, stored at v1alpha1 with its status
    for (const kind of allKinds) await applyCrd(previousCrd(kind));
    for (const kind of allKinds) await established(kind);
    for (const name of [served, other, operatorNamespace])
      await admin.request("POST", "/api/v1/namespaces", { body: { metadata: { name } } });
    const status = {
      state: "Succeeded",
      completionState: "Failed",
      markedCompletedAt: "2026-01-02T03:04:05Z",
    };
    const create = async (namespace: string, name: string) => {
      await eventually(
        `Run ${namespace}/${name} created at v1alpha1`,
        () =>
          admin.request("POST", path("v1alpha1", namespace), {
            body: {
              apiVersion: "pipelines.slipway.dev/v1alpha1",
              kind: "Run",
              metadata: { name },
              spec: { provider: "argo", pipeline: "train" },
            },
          }),
        () => true,
        30_000,
      );
      const current: Any = await admin.request("GET", path("v1alpha1", namespace, name));
      await admin.request("PUT", path("v1alpha1", namespace, name, "status"), {
        body: { ...current, status },
      });
      return admin.request<Any>("GET", path("v1alpha1", namespace, name));
    };
    await create(served, "nightly");
    const before = await create(other, "weekly");

    // this release's CRDs (v1beta1 stored), converted by the operator by URL
    const [webhookPort] = await freePorts(1);
    const conversionUrl = `https://127.0.0.1:${webhookPort}${conversionPath}`;
    const conversionService = { namespace: operatorNamespace, name: webhookServiceName };
    for (const kind of allKinds)
      await applyCrd(crdConversionAt(crdManifest(kind, { conversionService }), conversionUrl) as CrdManifest);
    for (const kind of allKinds) await established(kind);

    // the operator serving one namespace, with the release bundle's RBAC for it
    const objects = KubernetesObjectApi.makeApiClient(plane.kubeConfig);
    const rbac = ["ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"];
    for (const object of releaseBundle(operatorNamespace, { serves: [served] })) {
      if (!rbac.includes(object.kind ?? "")) continue;
      await objects.patch(
        toClientModel<KubernetesObject>(object),
        undefined,
        undefined,
        "slipway-install",
        true,
        PatchStrategy.ServerSideApply,
      );
    }
    const dir = await mkdtemp(join(tmpdir(), "slipway-storage-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const operatorKubeconfig = join(dir, "kubeconfig");
    await writeServiceAccountKubeconfig(
      plane.kubeConfig,
      operatorNamespace,
      operatorName,
      operatorKubeconfig,
    );
    const access = await loadClusterAccess({ kubeconfig: operatorKubeconfig });
    const asOperator = new RestClient(access);
    onTestFinished(() => asOperator.close());
    await eventually(
      "the operator's RBAC in effect",
      () => asOperator.request("GET", resourcePath(crdType, { name: crdName(RunKind) })).then(() => true),
      () => true,
      30_000,
    );
    const lines: Any[] = [];
    const log = pino(
      { level: "info" },
      new Writable({
        write(chunk, _encoding, done) {
          for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
          done();
        },
      }),
    );
    const stop = new AbortController();
    const outcome = runOperator({
      kubeConfig: access,
      namespaces: [served],
      controllers: [],
      leaderElect: true,
      leaseNamespace: operatorNamespace,
      log,
      stop: stop.signal,
      webhook: {
        port: webhookPort ?? 0,
        host: "127.0.0.1",
        hosts: ["127.0.0.1"],
        namespace: operatorNamespace,
        configurations: [],
        conversion: { url: conversionUrl },
      },
    });
    onTestFinished(() => {
      stop.abort();
      return outcome.then(() => {});
    });
    const kept = await eventually(
      "the operator rewrote its namespace's Run and kept storedVersions",
      async () => lines.find((line) => line.crd === crdName(RunKind) && line.outcome === "rewritten"),
      (line) => line !== undefined,
      60_000,
    );
    expect(kept.rewritten).toBe(1);
    expect(kept.msg).toContain("slipway storage migrate");
    expect((await crd(RunKind)).status.storedVersions).toEqual(["v1alpha1", "v1beta1"]);

    // the operator's own token cannot list other namespaces: refused, in one line naming the right
    const refused = await slipway(["storage", "migrate", "--kubeconfig", operatorKubeconfig]);
    expect(refused.code).not.toBe(0);
    const refusal = refused.stderr.trim();
    expect(refusal.split("\n")).toHaveLength(1);
    expect(refusal).toMatch(
      /cannot list resource "[a-z]+" in API group "[a-z.]+\.slipway\.dev" at the cluster scope/,
    );
    expect(refusal).toContain("needs list and update on every Slipway kind in every namespace");
    expect((await crd(RunKind)).status.storedVersions).toEqual(["v1alpha1", "v1beta1"]);

    // with the installer's rights: every namespace rewritten, storedVersions trimmed
    const done = await slipway(["storage", "migrate", "--kubeconfig", plane.kubeconfig]);
    expect(done.stderr).toBe("");
    expect(done.code).toBe(0);
    expect(done.stdout).toContain(
      `storage migrated: ${crdName(RunKind)}, 2 objects rewritten at v1beta1, storedVersions trimmed`,
    );
    for (const kind of allKinds) expect((await crd(kind)).status.storedVersions).toEqual(["v1beta1"]);

    // the other namespace's Run: stored again (a new resourceVersion), the same at both versions
    const alpha: Any = await admin.request("GET", path("v1alpha1", other, "weekly"));
    expect(content(alpha)).toEqual(content(before));
    expect(alpha.metadata.resourceVersion).not.toBe(before.metadata.resourceVersion);
    const beta: Any = await admin.request("GET", path("v1beta1", other, "weekly"));
    expect(beta.apiVersion).toBe("pipelines.slipway.dev/v1beta1");
    expect(beta.spec).toEqual(before.spec);
    const { markedCompletedAt, ...rest } = status;
    expect(beta.status).toEqual({ ...rest, completedAt: markedCompletedAt });

    // a second run: nothing stored at an older version, nothing rewritten
    const again = await slipway(["storage", "migrate", "--kubeconfig", plane.kubeconfig]);
    expect(again.code).toBe(0);
    expect(again.stdout.trim()).toBe(
      "storage migration: every kind is stored at v1beta1 only, nothing to do",
    );
    const settled: Any = await admin.request("GET", path("v1beta1", other, "weekly"));
    expect(settled.metadata.resourceVersion).toBe(beta.metadata.resourceVersion);
  });
});
