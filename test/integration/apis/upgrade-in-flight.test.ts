/**
 * Slipway's own upgrade in flight: the previous release's operator (its sources from this
 * repository's history, a v1alpha1 client, test/support/previous-release.ts) runs 50 Runs on the argo
 * backend and 20 ImageBuilds (kaniko Jobs whose pods keep running); while they are in progress the
 * CRDs move to v1beta1 (converted by this release's webhook) and the operator is replaced by this
 * release's; Runs complete before, during and after. No Run is submitted twice (one Workflow each),
 * no build restarted (the same Job, uid and attempts), no completion event sent twice (the sink counts
 * every request), every Run's completion is recorded, and the storage is migrated. On a control plane
 * of its own: it replaces the CRDs every other test shares.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { describe, expect, it, onTestFinished } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { type CrdManifest, crdManifest } from "../../../src/apis/crd.ts";
import type { Kind } from "../../../src/apis/kind.ts";
import { crdName, resourceTypeOf } from "../../../src/apis/kind.ts";
import { pipelineKinds } from "../../../src/apis/pipelines/index.ts";
import { RunKind } from "../../../src/apis/pipelines/run.ts";
import { conversionPath } from "../../../src/apis/versions.ts";
import { crdConversionAt, webhookServiceName } from "../../../src/bundle/webhook.ts";
import { privateControlPlane } from "../../../src/dev/cluster.ts";
import { packageRoot } from "../../../src/dev/paths.ts";
import { freePorts } from "../../../src/dev/ports.ts";
import { crdType } from "../../../src/kube/core-types.ts";
import { resourcePath } from "../../../src/kube/keys.ts";
import { migrateStorage } from "../../../src/operator/storage-migration.ts";
import { operatorWebhooks } from "../../../src/operator/webhooks.ts";
import { types } from "../../../src/pipelines/types.ts";
import { previousCrd } from "../../support/api-versions.ts";
import { eventually } from "../../support/cluster.ts";
import { startBuildServers, uploadContext } from "../../support/fakes/build-server-children.ts";
import { Api, installArgoCrds } from "../../support/fakes/pipelines-operator.ts";
import { previousRelease } from "../../support/previous-release.ts";
import type { Activity } from "../../support/reconciles.ts";
import { acknowledged, startEventSink } from "../pipelines/event-sink.ts";
import { finishWorkflow } from "../pipelines/event-support.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;
const namespace = "team";
const runs = 50;
const names = Array.from({ length: runs }, (_, i) => `run-${String(i).padStart(2, "0")}`);
const builds = 20;
const buildNames = Array.from({ length: builds }, (_, i) => `build-${String(i).padStart(2, "0")}`);
const kinds = [...pipelineKinds, ImageBuildKind];
const registryUser = { username: "builder", password: "reg-pass-7d1f0c9e" };

const alphaPath = (kind: Kind, name?: string) =>
  resourcePath({ ...resourceTypeOf(kind), version: "v1alpha1" }, { namespace, name });

describe("Slipway's own upgrade in flight", () => {
  it("50 Runs and 20 builds in progress across the operator's upgrade and the move to v1beta1: none submitted twice, no event sent twice", {
    timeout: 600_000,
  }, async () => {
    const previous = await previousRelease();
    const plane = await privateControlPlane("slipway-upgrade-");
    onTestFinished(() => plane.stop());
    const api = new Api(plane.kubeConfig);
    onTestFinished(() => api.close());
    const applyCrd = (crd: CrdManifest) =>
      api.rest.request("PATCH", resourcePath(crdType, { name: crd.metadata?.name }), {
        query: { fieldManager: "slipway-install", force: true },
        body: crd,
        contentType: "application/apply-patch+yaml",
      });
    const established = (kind: Kind) =>
      eventually(
        `CRD ${kind.plural} Established`,
        () => api.get<Any>(crdType, undefined, crdName(kind)),
        (c) => c?.status?.conditions?.some((x: Any) => x.type === "Established" && x.status === "True"),
        30_000,
      );
    for (const kind of kinds) await applyCrd(previousCrd(kind));
    for (const kind of kinds) await established(kind);
    await installArgoCrds(api);
    await api.rest.request("POST", "/api/v1/namespaces", { body: { metadata: { name: namespace } } });

    const sink = await startEventSink();
    onTestFinished(() => sink.close());
    const dir = await mkdtemp(join(tmpdir(), "slipway-upgrade-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const eventsConfig = join(dir, "events.json");
    await writeFile(
      eventsConfig,
      JSON.stringify({
        sinks: [{ url: sink.url }],
        retry: { baseSeconds: 0.2, maxSeconds: 1 },
        timeoutSeconds: 30,
      }),
    );

    /** The last activity each operator process printed (event-operator-process.ts). */
    const activities = new Map<ChildProcess, Activity>();
    // builds: a real registry and S3 for the operator's checks; the build Jobs' pods run until told
    const servers = await startBuildServers({ [registryUser.username]: registryUser.password }, "artifacts");
    onTestFinished(() => servers.stop());
    const auth = Buffer.from(`${registryUser.username}:${registryUser.password}`).toString("base64");
    await api.rest.request("POST", `/api/v1/namespaces/${namespace}/secrets`, {
      body: {
        metadata: { name: "registry-creds" },
        type: "kubernetes.io/dockerconfigjson",
        stringData: {
          ".dockerconfigjson": JSON.stringify({ auths: { [servers.registry.address]: { auth } } }),
        },
      },
    });
    await api.rest.request("POST", `/api/v1/namespaces/${namespace}/secrets`, {
      body: {
        metadata: { name: "s3-creds" },
        stringData: {
          AWS_ACCESS_KEY_ID: servers.s3.accessKeyId,
          AWS_SECRET_ACCESS_KEY: servers.s3.secretAccessKey,
        },
      },
    });
    const artifactUri = await uploadContext(servers, namespace, { Dockerfile: "FROM scratch\n" });
    const buildsConfig = JSON.stringify({
      backend: "kaniko",
      maxConcurrentBuilds: 100,
      kaniko: { podAnnotations: { "sim.slipway.dev/outcome": "hang" } },
      registry: { url: servers.registry.address, insecure: true, credentialsSecret: "registry-creds" },
      storage: {
        type: "s3",
        s3: {
          endpoint: servers.s3.endpoint,
          region: "us-east-1",
          forcePathStyle: true,
          credentialsSecret: "s3-creds",
        },
      },
    });
    /** The ImageBuild controller process of `release` for the namespace. */
    const startBuildOperator = (release: string) =>
      startProcess([
        join(import.meta.dirname, "build-operator-process.ts"),
        release,
        plane.kubeconfig,
        namespace,
        buildsConfig,
      ]);

    /** A pipelines operator process of `release` (its event-operator-process.ts) for the namespace. */
    const startOperator = (release: string) =>
      startProcess([
        join(release, "test/integration/pipelines/event-operator-process.ts"),
        plane.kubeconfig,
        namespace,
      ]);
    const startProcess = async (args: string[]): Promise<ChildProcess> => {
      const child = spawn(join(packageRoot, "node_modules/node/bin/node"), args, {
        env: { ...process.env, SLIPWAY_EVENTS_CONFIG: eventsConfig },
        stdio: ["ignore", "pipe", "inherit"],
      });
      onTestFinished(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      });
      child.stdout?.on("data", (chunk: Buffer) => {
        const last = chunk
          .toString()
          .match(/^activity (.+)$/gm)
          ?.at(-1);
        if (last) activities.set(child, JSON.parse(last.slice("activity ".length)));
      });
      await new Promise<void>((resolve, reject) => {
        child.stdout?.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
        child.once("exit", (code) => reject(new Error(`operator exited with ${code} before it was ready`)));
      });
      return child;
    };
    const stopOperator = async (child: ChildProcess) => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    };

    // the previous release runs; its objects are written at v1alpha1, as its users wrote them
    const old = await startOperator(previous);
    const oldBuilds = await startBuildOperator(previous);
    const alpha = "pipelines.slipway.dev/v1alpha1";
    const create = (kind: Kind, name: string, spec: Any, apiVersion = alpha) =>
      api.rest.request("POST", alphaPath(kind), {
        body: { apiVersion, kind: kind.kind, metadata: { name }, spec },
      });
    const [provider, pipeline] = pipelineKinds;
    await create(provider as Kind, "argo", { type: "argo" });
    await create(pipeline as Kind, "train", {
      provider: "argo",
      image: "registry.example/ml/pipeline:1",
      steps: [{ name: "train" }],
    });
    await eventually(
      "Pipeline train synchronized",
      () => api.rest.request<Any>("GET", alphaPath(pipeline as Kind, "train")),
      (p) => p?.status?.state === "Succeeded",
    );
    for (const name of names) await create(RunKind, name, { provider: "argo", pipeline: "train" });
    const submitted = async () =>
      Promise.all(names.map((name) => api.rest.request<Any>("GET", alphaPath(RunKind, name))));
    const workflowOf = new Map(
      (
        await eventually(
          "every Run submitted by the previous operator",
          submitted,
          (all) => all.every((run) => run.status?.provider?.id),
          120_000,
        )
      ).map((run) => [run.metadata.name as string, run.status.provider.id as string]),
    );
    const finish = async (from: number, to: number) => {
      for (const name of names.slice(from, to))
        await finishWorkflow(
          api,
          namespace,
          workflowOf.get(name) ?? "",
          from % 20 === 0 ? "Succeeded" : "Failed",
        );
    };
    for (const name of buildNames)
      await create(
        ImageBuildKind,
        name,
        { project: "fraud", name: "scorer", version: name, artifactUri },
        "builds.slipway.dev/v1alpha1",
      );
    const building = await eventually(
      "every build running under the previous operator",
      () =>
        Promise.all(buildNames.map((name) => api.rest.request<Any>("GET", alphaPath(ImageBuildKind, name)))),
      // its Job's pod running (attempts: its failed and active pods)
      (all) => all.every((build) => build.status?.phase === "Building" && build.status?.attempts === 1),
      120_000,
    );
    const jobsBefore = await api.rest.request<Any>("GET", `/apis/batch/v1/namespaces/${namespace}/jobs`);
    expect(jobsBefore.items).toHaveLength(builds);
    await finish(0, 10);
    await eventually(
      "10 events delivered",
      async () => acknowledged(sink),
      (l) => l.length === 10,
      60_000,
    );

    // this release's webhook serves the conversion; its CRDs go in while the previous operator runs
    const [webhookPort] = await freePorts(1);
    const conversionUrl = `https://127.0.0.1:${webhookPort}${conversionPath}`;
    const admin = api.rest;
    const webhooks = operatorWebhooks(
      admin,
      {
        port: webhookPort ?? 0,
        host: "127.0.0.1",
        hosts: ["127.0.0.1"],
        namespace: "default",
        configurations: [],
        conversion: { url: conversionUrl },
      },
      pino({ level: "silent" }),
    );
    await webhooks.start();
    onTestFinished(() => webhooks.stop());
    const conversionService = { namespace: "default", name: webhookServiceName };
    for (const kind of kinds)
      await applyCrd(crdConversionAt(crdManifest(kind, { conversionService }), conversionUrl) as CrdManifest);
    for (const kind of kinds) await established(kind);
    await webhooks.refresh(); // the CA into the new CRDs at once (the runner would within its refresh)
    await finish(10, 20); // completed under the previous operator, now a client of a converted version
    await eventually(
      "20 events delivered",
      async () => acknowledged(sink),
      (l) => l.length === 20,
      60_000,
    );

    // the operator is replaced: runs complete while none runs, then under this release's
    await stopOperator(old);
    await stopOperator(oldBuilds);
    await finish(20, 30);
    const current = await startOperator(packageRoot);
    onTestFinished(() => stopOperator(current));
    const currentBuilds = await startBuildOperator(packageRoot);
    onTestFinished(() => stopOperator(currentBuilds));
    const migration = await migrateStorage({
      rest: admin,
      kinds: pipelineKinds,
      namespaces: undefined,
      log: pino({ level: "silent" }),
    });
    const runsMigration = migration.find((m) => m.crd === "runs.pipelines.slipway.dev");
    expect(runsMigration).toMatchObject({ outcome: "migrated", storedVersions: ["v1beta1"] });
    expect(runsMigration?.rewritten).toBeGreaterThan(0);
    await finish(30, runs);
    await eventually(
      "every event delivered",
      async () => acknowledged(sink),
      (l) => l.length === runs,
      120_000,
    );
    const completed = await eventually(
      "every Run's completion recorded",
      () => api.list<Any>(types.run, namespace),
      (all) =>
        all.length === runs && all.every((run) => run.status?.completionState && run.status?.completedAt),
      60_000,
    );

    // the current operator has nothing left to do (a second send would have been queued by now)
    const reconciledBefore = activities.get(current)?.reconciles ?? 0;
    await eventually(
      "the current operator idle after more reconciles",
      async () => activities.get(current),
      (a) => a !== undefined && a.pending === 0 && a.reconciles > reconciledBefore,
      60_000,
    );

    // one Workflow per Run, the one the previous operator submitted
    const workflows = await api.list<Any>(types.workflow, namespace);
    expect(workflows.map((w) => w.metadata.name).sort()).toEqual([...workflowOf.values()].sort());
    expect(completed.map((run) => run.status.provider.id).sort()).toEqual([...workflowOf.values()].sort());
    // every event sent once: one request per Run, each id once, each acknowledged
    const ids = sink.received.map((r) => r.event.id);
    expect(ids.length).toBe(runs);
    expect(new Set(ids).size).toBe(runs);
    expect(sink.invalid).toEqual([]);
    // every build still the one Job the previous operator started: none restarted, none added
    const jobsAfter = await api.rest.request<Any>("GET", `/apis/batch/v1/namespaces/${namespace}/jobs`);
    const uids = (jobs: Any) =>
      jobs.items.map((job: Any) => `${job.metadata.name}/${job.metadata.uid}`).sort();
    expect(uids(jobsAfter)).toEqual(uids(jobsBefore));
    const buildsAfter = await Promise.all(
      buildNames.map((name) => api.get<Any>(resourceTypeOf(ImageBuildKind), namespace, name)),
    );
    expect(buildsAfter.map((b) => [b.status.phase, b.status.job, b.status.attempts])).toEqual(
      building.map((b) => ["Building", b.status.job, b.status.attempts]),
    );

    // the Runs read back at v1alpha1 still, as the previous release wrote them
    const asAlpha: Any = await api.rest.request("GET", alphaPath(RunKind, names[0]));
    expect(asAlpha.apiVersion).toBe(alpha);
    expect(asAlpha.status.markedCompletedAt).toBe(
      completed.find((r) => r.metadata.name === names[0])?.status.completedAt,
    );
  });
});
