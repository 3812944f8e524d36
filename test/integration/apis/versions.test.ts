/**
 * Slipway's own API versions on a real API server: objects created at v1alpha1 under the previous
 * release's CRDs (v1alpha1 only, stored) read back as v1beta1 once the new CRDs and the operator run,
 * and as v1alpha1 unchanged; the operator (its release RBAC only, serving every namespace) converts
 * through its webhook, rewrites the stored objects and trims `status.storedVersions`; kubectl gets
 * either version. On a control plane of its own: it replaces the CRDs every other test shares.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { promisify } from "node:util";
import { type KubernetesObject, KubernetesObjectApi, PatchStrategy } from "@kubernetes/client-node";
import pino from "pino";
import { describe, expect, it, onTestFinished } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { type CrdManifest, crdManifest } from "../../../src/apis/crd.ts";
import { allKinds } from "../../../src/apis/index.ts";
import { crdName, type Kind, resourceTypeOf } from "../../../src/apis/kind.ts";
import { RunKind } from "../../../src/apis/pipelines/run.ts";
import { PlatformKind } from "../../../src/apis/platform/platform.ts";
import { conversionPath } from "../../../src/apis/versions.ts";
import { toClientModel } from "../../../src/apis/wire.ts";
import { operatorName } from "../../../src/bundle/bundle.ts";
import { releaseBundle } from "../../../src/bundle/release.ts";
import { crdConversionAt, webhookServiceName } from "../../../src/bundle/webhook.ts";
import { binaryPaths } from "../../../src/dev/binaries.ts";
import { privateControlPlane } from "../../../src/dev/cluster.ts";
import { freePorts } from "../../../src/dev/ports.ts";
import { crdType } from "../../../src/kube/core-types.ts";
import { resourcePath } from "../../../src/kube/keys.ts";
import { loadClusterAccess } from "../../../src/kube/kubeconfig.ts";
import { RestClient } from "../../../src/kube/rest.ts";
import { runOperator } from "../../../src/operator/main.ts";
import { crdsOf, previousCrd } from "../../support/api-versions.ts";
import { eventually } from "../../support/cluster.ts";
import { writeServiceAccountKubeconfig } from "../../support/service-account.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;
const exec = promisify(execFile);
const namespace = "team";
const operatorNamespace = "slipway";

const alphaPath = (kind: Kind, name?: string, subresource?: string) =>
  resourcePath({ ...resourceTypeOf(kind), version: "v1alpha1" }, { namespace, name, subresource });
const betaPath = (kind: Kind, name?: string) => resourcePath(resourceTypeOf(kind), { namespace, name });

/** What the upgrade may change of an object: its resourceVersion (rewritten) and the record of who wrote it. */
const content = (object: Any) => {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = object.metadata;
  return { ...object, metadata };
};

describe("v1alpha1 → v1beta1 on the real API server", () => {
  it("objects stored at v1alpha1 read as v1beta1 and back unchanged; storage migrated; kubectl gets both", {
    timeout: 300_000,
  }, async () => {
    const plane = await privateControlPlane("slipway-versions-");
    onTestFinished(() => plane.stop());
    const admin = new RestClient(await loadClusterAccess({ kubeconfig: plane.kubeconfig }));
    onTestFinished(() => admin.close());
    const kubectl = async (...args: string[]) =>
      (
        await exec(binaryPaths().kubectl, ["--kubeconfig", plane.kubeconfig, ...args], {
          maxBuffer: 16 << 20,
        })
      ).stdout;
    const { apply: applyCrd, crd, established } = crdsOf(admin);

    // the previous release: v1alpha1 only, objects created and their status written at it
    for (const kind of allKinds) await applyCrd(previousCrd(kind));
    for (const kind of allKinds) await established(kind);
    for (const name of [namespace, operatorNamespace])
      await admin.request("POST", "/api/v1/namespaces", { body: { metadata: { name } } });
    const alpha = (kind: Kind) => `${kind.group}/v1alpha1`;
    const create = async (kind: Kind, name: string, spec: Any, status?: Any) => {
      await eventually(
        `${kind.kind} ${name} created at v1alpha1`,
        () =>
          admin.request("POST", alphaPath(kind), {
            body: {
              apiVersion: alpha(kind),
              kind: kind.kind,
              metadata: { name, labels: { team: "a" } },
              spec,
            },
          }),
        () => true,
        30_000,
      );
      if (status) {
        const current: Any = await admin.request("GET", alphaPath(kind, name));
        await admin.request("PUT", alphaPath(kind, name, "status"), { body: { ...current, status } });
      }
      return admin.request<Any>("GET", alphaPath(kind, name));
    };
    const runStatus = {
      state: "Succeeded",
      completionState: "Failed",
      markedCompletedAt: "2026-01-02T03:04:05Z",
      failure: "step train: exit code 1",
    };
    const before = {
      run: await create(RunKind, "nightly", { provider: "argo", pipeline: "train" }, runStatus),
      build: await create(ImageBuildKind, "scorer", {
        project: "fraud",
        name: "scorer",
        version: "v3",
        artifactUri: "s3://models/fraud/scorer/v3",
      }),
      platform: await create(PlatformKind, "lab", {}),
    };
    expect(before.run.status.markedCompletedAt).toBe(runStatus.markedCompletedAt);

    // this release's CRDs: v1beta1 stored, v1alpha1 served, converted by the operator (by URL, as
    // `slipway dev` installs them: the API server runs on this machine), whose CA is not there yet
    const [webhookPort] = await freePorts(1);
    const conversionUrl = `https://127.0.0.1:${webhookPort}${conversionPath}`;
    const conversionService = { namespace: operatorNamespace, name: webhookServiceName };
    for (const kind of allKinds)
      await applyCrd(crdConversionAt(crdManifest(kind, { conversionService }), conversionUrl) as CrdManifest);
    for (const kind of allKinds) await established(kind);
    expect((await crd(RunKind)).status.storedVersions).toEqual(["v1alpha1", "v1beta1"]);
    // until the operator runs, what needs converting fails (nothing converted wrongly); the rest reads
    await expect(admin.request("GET", betaPath(RunKind, "nightly"))).rejects.toThrow();
    expect(content(await admin.request("GET", alphaPath(RunKind, "nightly")))).toEqual(content(before.run));

    // the operator with the release bundle's RBAC (every namespace), its webhook on 127.0.0.1
    const objects = KubernetesObjectApi.makeApiClient(plane.kubeConfig);
    const rbac = ["ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"];
    for (const object of releaseBundle(operatorNamespace, { serves: "all" })) {
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
    const dir = await mkdtemp(join(tmpdir(), "slipway-versions-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const kubeconfig = join(dir, "kubeconfig");
    await writeServiceAccountKubeconfig(plane.kubeConfig, operatorNamespace, operatorName, kubeconfig);
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
    const access = await loadClusterAccess({ kubeconfig });
    // the RBAC authorizer may not know the bindings yet: wait until the operator may read its CRDs
    const asOperator = new RestClient(access);
    onTestFinished(() => asOperator.close());
    await eventually(
      "the operator's RBAC in effect",
      () =>
        asOperator
          .request("GET", resourcePath(crdType, { name: "runs.pipelines.slipway.dev" }))
          .then(() => true),
      () => true,
      30_000,
    );
    const startOperator = () => {
      const stop = new AbortController();
      const outcome = runOperator({
        kubeConfig: access,
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
      return { stop, outcome };
    };
    const first = startOperator();
    const runsCrd = await eventually(
      "storedVersions trimmed to v1beta1",
      () => crd(RunKind),
      (c) => c.status.storedVersions.join() === "v1beta1",
      60_000,
    );
    expect(runsCrd.spec.conversion.strategy).toBe("Webhook");
    expect(runsCrd.spec.conversion.webhook.clientConfig.url).toBe(`https://127.0.0.1:${webhookPort}/convert`);
    for (const kind of allKinds)
      await eventually(
        `${kind.plural} storedVersions trimmed`,
        () => crd(kind),
        (c) => c.status.storedVersions.join() === "v1beta1",
        60_000,
      );
    const everyKindMigrated = allKinds
      .map((kind) => [crdName(kind), [RunKind, ImageBuildKind, PlatformKind].includes(kind as never) ? 1 : 0])
      .sort();
    // the last CRD's trim can be seen here before the operator has read the answer and logged its line
    const migrated = await eventually(
      "one storage-migrated line per kind",
      async () => lines.filter((line) => String(line.msg).startsWith("storage migrated:")),
      (found) => found.length >= everyKindMigrated.length,
      10_000,
    );
    expect(migrated.map((line) => [line.crd, line.rewritten]).sort()).toEqual(everyKindMigrated);

    // read at v1beta1: the Run's markedCompletedAt is completedAt, nothing else moved
    const betaRun: Any = await admin.request("GET", betaPath(RunKind, "nightly"));
    expect(betaRun.apiVersion).toBe("pipelines.slipway.dev/v1beta1");
    const { markedCompletedAt, ...rest } = runStatus;
    expect(betaRun.status).toEqual({ ...rest, completedAt: markedCompletedAt });
    expect(betaRun.spec).toEqual(before.run.spec);
    const betaBuild: Any = await admin.request("GET", betaPath(ImageBuildKind, "scorer"));
    expect(betaBuild.apiVersion).toBe("builds.slipway.dev/v1beta1");
    expect(betaBuild.spec).toEqual(before.build.spec);

    // back at v1alpha1: unchanged but for the rewrite (a new resourceVersion: stored again, at v1beta1;
    // the API server writes nothing for an update whose encoding is the same)
    for (const [kind, name, was] of [
      [RunKind, "nightly", before.run],
      [ImageBuildKind, "scorer", before.build],
      [PlatformKind, "lab", before.platform],
    ] as const) {
      const now: Any = await admin.request("GET", alphaPath(kind, name));
      expect(content(now)).toEqual(content(was));
      expect(now.metadata.resourceVersion).not.toBe(was.metadata.resourceVersion);
    }

    // kubectl: either version by name, this one by default; the Run's columns are its version's
    const asJson = (resource: string) => kubectl("get", resource, "-n", namespace, "nightly", "-o", "json");
    const viaAlpha = JSON.parse(await asJson("runs.v1alpha1.pipelines.slipway.dev"));
    expect(viaAlpha.apiVersion).toBe("pipelines.slipway.dev/v1alpha1");
    expect(viaAlpha.status.markedCompletedAt).toBe(markedCompletedAt);
    const viaBeta = JSON.parse(await asJson("runs.v1beta1.pipelines.slipway.dev"));
    expect(viaBeta.apiVersion).toBe("pipelines.slipway.dev/v1beta1");
    expect(viaBeta.status.completedAt).toBe(markedCompletedAt);
    expect(JSON.parse(await asJson("runs")).apiVersion).toBe("pipelines.slipway.dev/v1beta1");
    const header = async (resource: string) =>
      (await kubectl("get", resource, "-n", namespace)).split("\n")[0]?.split(/\s+/);
    expect(await header("runs")).toEqual(["NAME", "PIPELINE", "PROVIDER", "COMPLETION", "AGE"]);
    expect(await header("runs.v1alpha1.pipelines.slipway.dev")).toEqual([
      "NAME",
      "PIPELINE",
      "PROVIDER",
      "STATE",
      "COMPLETION",
      "AGE",
    ]);
    const wide = await kubectl("get", "runs", "-n", namespace, "-o", "wide");
    expect(wide).toMatch(/^NAME\s+PIPELINE\s+PROVIDER\s+COMPLETION\s+SYNC\s+AGE$/m);
    expect(wide).toMatch(/^nightly\s+train\s+argo\s+Failed\s+Succeeded\s+\S+$/m);
    expect(await kubectl("get", "imagebuilds.v1alpha1.builds.slipway.dev", "-n", namespace)).toContain(
      "scorer",
    );

    // a v1alpha1 client writes back what it read: nothing of v1beta1 is lost
    const read: Any = await admin.request("GET", alphaPath(RunKind, "nightly"));
    await admin.request("PUT", alphaPath(RunKind, "nightly"), {
      body: { ...read, metadata: { ...read.metadata, labels: { team: "b" } } },
    });
    const after: Any = await admin.request("GET", betaPath(RunKind, "nightly"));
    expect(after.metadata.labels).toEqual({ team: "b" });
    expect(after.status.completedAt).toBe(markedCompletedAt);

    // a second start: nothing stored at v1alpha1, nothing rewritten
    first.stop.abort();
    expect(await first.outcome).toBe(0);
    const rewrittenBefore = lines.filter((line) => String(line.msg).startsWith("storage migrated:")).length;
    const settled: Any = await admin.request("GET", betaPath(PlatformKind, "lab"));
    const second = startOperator();
    await eventually(
      "the second operator's migration found nothing to do",
      async () => lines.filter((line) => String(line.msg).endsWith("nothing to do")),
      (done) => done.length === 1,
      60_000,
    );
    second.stop.abort();
    expect(await second.outcome).toBe(0);
    expect(lines.filter((line) => String(line.msg).startsWith("storage migrated:")).length).toBe(
      rewrittenBefore,
    );
    const unchanged: Any = await admin.request("GET", betaPath(PlatformKind, "lab"));
    expect(unchanged.metadata.resourceVersion).toBe(settled.metadata.resourceVersion);
  });
});
