/**
 * `slipway storage migrate` on a real API server: an operator that serves one namespace rewrites its
 * objects and keeps the CRDs' storedVersions (it cannot list the others); the command, with the
 * installer's rights, rewrites those of every namespace and trims storedVersions to v1beta1. An
 * object of a namespace the operator does not serve, stored at v1alpha1, reads back at both versions
 * unchanged. Before the operator converts, and with the operator's own token, the command stops
 * in one line saying why (the conversion webhook; the right it lacks). `slipway install` and
 * `update` (migrateAfterRollout) do the same once the operator's Deployment has rolled out,
 * waiting until its webhook converts. On a control plane of its own: it replaces the CRDs every
 * other test shares.
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
import { crdName, resourceTypeOf } from "../../../src/apis/kind.ts";
import { RunKind } from "../../../src/apis/pipelines/run.ts";
import { conversionPath } from "../../../src/apis/versions.ts";
import { toClientModel } from "../../../src/apis/wire.ts";
import { operatorName } from "../../../src/bundle/bundle.ts";
import { releaseBundle } from "../../../src/bundle/release.ts";
import { crdConversionAt, webhookServiceName } from "../../../src/bundle/webhook.ts";
import { PlatformContext } from "../../../src/cli/platform/context.ts";
import { migrateAfterRollout } from "../../../src/cli/platform/storage.ts";
import { privateControlPlane } from "../../../src/dev/cluster.ts";
import { freePorts } from "../../../src/dev/ports.ts";
import { crdType } from "../../../src/kube/core-types.ts";
import { resourcePath } from "../../../src/kube/keys.ts";
import { type ClusterAccess, loadClusterAccess } from "../../../src/kube/kubeconfig.ts";
import { RestClient } from "../../../src/kube/rest.ts";
import { runOperator } from "../../../src/operator/main.ts";
import { ownVersion } from "../../../src/platform/catalog.ts";
import { crdsOf, previousCrd } from "../../support/api-versions.ts";
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

/** The status each Run was given at v1alpha1. */
const status = {
  state: "Succeeded",
  completionState: "Failed",
  markedCompletedAt: "2026-01-02T03:04:05Z",
};

/** What the migration may change of an object: its resourceVersion (rewritten) and the record of who wrote it. */
const content = (object: Any) => {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = object.metadata;
  return { ...object, metadata };
};

/**
 * A control plane of its own where a Run in each of two namespaces was stored at v1alpha1 (with its
 * status) under the previous release's CRDs, and this release's CRDs are in (v1beta1 stored,
 * converted by an operator by URL, none running yet).
 */
async function planeWithAlphaRuns() {
  const plane = await privateControlPlane("slipway-storage-");
  onTestFinished(() => plane.stop());
  const admin = new RestClient(await loadClusterAccess({ kubeconfig: plane.kubeconfig }));
  onTestFinished(() => admin.close());
  const { apply: applyCrd, crd, established } = crdsOf(admin);

  // the previous release: a Run in each namespace, stored at v1alpha1 with its status
  for (const kind of allKinds) await applyCrd(previousCrd(kind));
  for (const kind of allKinds) await established(kind);
  for (const name of [served, other, operatorNamespace])
    await admin.request("POST", "/api/v1/namespaces", { body: { metadata: { name } } });
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

  /** This release's operator in this process, serving `namespaces`, its webhook at `conversionUrl`; its log lines. */
  const startOperator = (access: ClusterAccess, namespaces: string[]) => {
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
      namespaces,
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
    return lines;
  };
  return { plane, admin, crd, before, startOperator };
}

/** The other namespace's Run: stored again (a new resourceVersion), the same at both versions; as read at v1beta1. */
async function readsBackUnchanged(admin: RestClient, before: Any): Promise<Any> {
  // the other namespace's Run: stored again (a new resourceVersion), the same at both versions
  const alpha: Any = await admin.request("GET", path("v1alpha1", other, "weekly"));
  expect(content(alpha)).toEqual(content(before));
  expect(alpha.metadata.resourceVersion).not.toBe(before.metadata.resourceVersion);
  const beta: Any = await admin.request("GET", path("v1beta1", other, "weekly"));
  expect(beta.apiVersion).toBe("pipelines.slipway.dev/v1beta1");
  expect(beta.spec).toEqual(before.spec);
  const { markedCompletedAt, ...rest } = status;
  expect(beta.status).toEqual({ ...rest, completedAt: markedCompletedAt });
  return beta;
}

describe("slipway storage migrate", () => {
  it("trims storedVersions an operator of one namespace keeps: objects of other namespaces rewritten, read back at both versions unchanged", {
    timeout: 300_000,
  }, async () => {
    const { plane, admin, crd, before, startOperator } = await planeWithAlphaRuns();
    // before the operator runs nothing converts: the command stops, in one line saying why
    const early = await slipway(["storage", "migrate", "--kubeconfig", plane.kubeconfig]);
    expect(early.code).not.toBe(0);
    expect(early.stderr.trim().split("\n")).toHaveLength(1);
    expect(early.stderr).toContain("conversion webhook for pipelines.slipway.dev/v1alpha1, Kind=Run failed");
    expect(early.stderr).toContain("is this release's operator running?");
    expect((await crd(RunKind)).status.storedVersions).toEqual(["v1alpha1", "v1beta1"]);

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
    const lines = startOperator(access, [served]);
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

    const beta = await readsBackUnchanged(admin, before);
    // a second run: nothing stored at an older version, nothing rewritten
    const again = await slipway(["storage", "migrate", "--kubeconfig", plane.kubeconfig]);
    expect(again.code).toBe(0);
    expect(again.stdout.trim()).toBe(
      "storage migration: every kind is stored at v1beta1 only, nothing to do",
    );
    const settled: Any = await admin.request("GET", path("v1beta1", other, "weekly"));
    expect(settled.metadata.resourceVersion).toBe(beta.metadata.resourceVersion);
  });

  it("install and update finish it: once the operator has rolled out and converts, every namespace is migrated", {
    timeout: 300_000,
  }, async () => {
    const { plane, admin, crd, before, startOperator } = await planeWithAlphaRuns();
    // the operator's Deployment (kwok's nodes report its pod ready), its process not started yet
    const labels = { app: operatorName };
    await admin.request("POST", `/apis/apps/v1/namespaces/${operatorNamespace}/deployments`, {
      body: {
        metadata: { name: operatorName },
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: { containers: [{ name: "operator", image: "ghcr.io/slipway-dev/slipway:test" }] },
          },
        },
      },
    });
    const context = new PlatformContext({
      kubeconfig: plane.kubeconfig,
      namespace: operatorNamespace,
      platform: "slipway",
      output: "text",
    });
    const said: string[] = [];
    context.say = (line: string) => void said.push(line);
    const migration = migrateAfterRollout(context, ownVersion, Date.now() + 120_000);
    await eventually(
      "rolled out, the migration waits for the conversion",
      async () => said,
      (lines) => lines.some((line) => line.startsWith("migrating the storage of")),
      60_000,
    );
    expect(said.join("\n")).toContain(crdName(RunKind));
    expect((await crd(RunKind)).status.storedVersions).toEqual(["v1alpha1", "v1beta1"]);

    // the operator of one namespace starts: its webhook converts, and the installer trims
    startOperator(await loadClusterAccess({ kubeconfig: plane.kubeconfig }), [served]);
    await migration;
    expect(said).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^storage migrated: ${crdName(RunKind)}, [12] objects rewritten at v1beta1, storedVersions trimmed$`,
        ),
      ),
    );
    for (const kind of allKinds) expect((await crd(kind)).status.storedVersions).toEqual(["v1beta1"]);
    await readsBackUnchanged(admin, before);

    // nothing left: a second install or update has nothing to do and says nothing
    said.length = 0;
    await migrateAfterRollout(context, ownVersion, Date.now() + 60_000);
    expect(said).toEqual([]);
  });
});
