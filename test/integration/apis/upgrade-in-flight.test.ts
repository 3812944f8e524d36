/**
 * Slipway's own upgrade in flight: the previous release's operator (its sources from this
 * repository's history, a v1alpha1 client, test/support/previous-release.ts) runs 50 Runs on the argo
 * backend and 20 ImageBuilds (kaniko Jobs whose pods keep running); while they are in progress the
 * CRDs move to v1beta1 and this release's operator starts as the image runs it, one `slipway
 * operator` process: as in a rolling update its webhook converts at once while the previous
 * operator still leads (a Lease held in its name), and it takes over once the previous one has
 * stopped and released the Lease, migrating the storage at start-up. Runs complete before, during
 * and after. No Run is submitted twice (one Workflow each),
 * no build restarted (the same Job, uid and attempts), no completion event sent twice (the sink counts
 * every request), every Run's completion is recorded, and the storage is migrated. On a control plane
 * of its own: it replaces the CRDs every other test shares.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { type CrdManifest, crdManifest } from "../../../src/apis/crd.ts";
import { allKinds } from "../../../src/apis/index.ts";
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
import { types } from "../../../src/pipelines/types.ts";
import { crdsOf, previousCrd } from "../../support/api-versions.ts";
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
/** Every Slipway kind: the whole operator runs, and caches each. */
const kinds = allKinds;
/** The Lease the operator campaigns for (src/kube/leader.ts's default name), in this namespace. */
const lease = { namespace: "default", name: "slipway-operator" };
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
    const { apply: applyCrd, established } = crdsOf(api.rest);
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

    // this release's CRDs go in while the previous operator runs, then this release's operator
    // starts while the previous one leads: its webhook sets the CA in the CRDs and converts at once
    const [webhookPort, metricsPort, healthPort] = await freePorts(3);
    const conversionUrl = `https://127.0.0.1:${webhookPort}${conversionPath}`;
    const conversionService = { namespace: "default", name: webhookServiceName };
    for (const kind of kinds)
      await applyCrd(crdConversionAt(crdManifest(kind, { conversionService }), conversionUrl) as CrdManifest);
    for (const kind of kinds) await established(kind);
    await api.rest.request("POST", `/apis/coordination.k8s.io/v1/namespaces/${lease.namespace}/leases`, {
      body: {
        metadata: { name: lease.name },
        spec: {
          holderIdentity: "previous-release",
          // a campaigner counts the duration from when it first sees the holder
          leaseDurationSeconds: 3600,
        },
      },
    });
    const buildsConfigFile = join(dir, "builds.json");
    await writeFile(buildsConfigFile, buildsConfig);
    const logLines: Any[] = [];
    const current = spawn(
      join(packageRoot, "bin/slipway"),
      [
        "operator",
        "--kubeconfig",
        plane.kubeconfig,
        "--all-namespaces",
        "--leader-elect",
        "--lease-namespace",
        lease.namespace,
        "--metrics-port",
        String(metricsPort),
        "--health-port",
        String(healthPort),
        "--webhook-port",
        String(webhookPort),
        "--webhook-hosts",
        "127.0.0.1",
        "--webhook-conversion-url",
        conversionUrl,
      ],
      {
        env: {
          ...process.env,
          SLIPWAY_EVENTS_CONFIG: eventsConfig,
          SLIPWAY_BUILDS_CONFIG: buildsConfigFile,
          // the event sink, the registry and S3 listen on 127.0.0.1
          SLIPWAY_OUTBOUND_ALLOW: "127.0.0.1",
          // as the previous operator's process: Argo's controller is taken to serve every namespace
          SLIPWAY_ARGO_NAMESPACES: "*",
          LOG_LEVEL: "info",
        },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    onTestFinished(async () => {
      if (current.exitCode !== null || current.signalCode !== null) return;
      const exited = new Promise((resolve) => current.once("exit", resolve));
      current.kill("SIGTERM");
      await exited;
    });
    let partial = "";
    current.stdout?.on("data", (chunk: Buffer) => {
      const text = partial + chunk.toString();
      const lines = text.split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines.filter(Boolean)) {
        try {
          logLines.push(JSON.parse(line));
        } catch {
          logLines.push({ msg: line });
        }
      }
    });
    await eventually(
      "the Runs read at v1beta1 (converted by the new operator's webhook)",
      () => api.rest.request<Any>("GET", resourcePath(resourceTypeOf(RunKind), { namespace })),
      (list) => list.items?.length === runs,
      60_000,
    );
    expect(logLines.some((line) => String(line.msg).startsWith("storage migr"))).toBe(false);
    await finish(10, 20); // completed under the previous operator, now a client of a converted version
    await eventually(
      "20 events delivered",
      async () => acknowledged(sink),
      (l) => l.length === 20,
      60_000,
    );

    // the previous operator stops and releases its Lease; runs complete while none leads, then
    // under this release's, which migrates the storage once it leads
    await stopOperator(old);
    await stopOperator(oldBuilds);
    await finish(20, 30);
    await api.rest.request(
      "DELETE",
      `/apis/coordination.k8s.io/v1/namespaces/${lease.namespace}/leases/${lease.name}`,
    );
    const runsMigration = await eventually(
      "this release's operator leads and migrates the Runs' storage",
      async () => logLines.find((line) => line.crd === crdName(RunKind) && line.outcome === "migrated"),
      (line) => line !== undefined,
      120_000,
    );
    expect(runsMigration.rewritten).toBeGreaterThan(0);
    expect(runsMigration.storedVersions).toEqual(["v1beta1"]);
    expect((await api.get<Any>(crdType, undefined, crdName(RunKind))).status.storedVersions).toEqual([
      "v1beta1",
    ]);
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

    // the current operator has nothing left to do: nothing queued or running, and no reconcile for a
    // second (a second send would come from one). Waiting for "more reconciles" than at this point
    // timed out where every Run had settled before it (CI, a slow run).
    let quietSince: { reconciles: number; at: number } | undefined;
    await eventually(
      "the current operator idle, no reconcile for a second",
      async () => {
        const activity = await runActivity(metricsPort ?? 0);
        if (activity.pending > 0) quietSince = undefined;
        else if (activity.reconciles !== quietSince?.reconciles)
          quietSince = { reconciles: activity.reconciles, at: Date.now() };
        return { ...activity, quietForMs: quietSince ? Date.now() - quietSince.at : 0 };
      },
      (a) => a.quietForMs >= 1_000,
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

    // SIGTERM: the operator stops cleanly (its webhook's callers cut off mid-request included)
    const exited = new Promise((resolve) => current.once("exit", (code, signal) => resolve(signal ?? code)));
    current.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});

/** The Run controller's activity from the operator's /metrics: keys queued or in a worker, reconciles finished. */
async function runActivity(metricsPort: number): Promise<Activity> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const sum = (metric: string, label: string) =>
    text
      .split("\n")
      .filter((line) => line.startsWith(`${metric}{`) && line.includes(`${label}="run"`))
      .reduce((total, line) => total + Number(line.split(" ").at(-1)), 0);
  return {
    pending: sum("workqueue_depth", "name") + sum("controller_runtime_active_workers", "controller"),
    reconciles: sum("controller_runtime_reconcile_total", "controller"),
  };
}
