/**
 * The platform's lifecycle through the CLI, with the operator running as its own process against the
 * test control plane: install, update, grow/shrink storage, patch, restart, stop, start, uninstall.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type {
  KubernetesObject,
  V1Deployment,
  V1PersistentVolumeClaim,
  V1Pod,
  V1StatefulSet,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { binaryPaths } from "../../../src/dev/binaries.ts";
import { findRelease, ownVersion } from "../../../src/platform/catalog.ts";
import { eventually } from "../../support/cluster.ts";
import {
  cli,
  listComponents,
  listObjects,
  type OperatorProcess,
  ownedKinds,
  readPlatform,
  startOperator,
  suiteNamespace,
} from "./support.ts";

const run = promisify(execFile);
const kubectl = (...args: string[]) =>
  run(binaryPaths().kubectl, ["--kubeconfig", inject("kubeconfig"), ...args], { timeout: 60_000 });

const componentCount = 7;
let namespace: string;
let removeNamespace: () => Promise<void>;
let operator: OperatorProcess;

beforeAll(async () => {
  ({ name: namespace, remove: removeNamespace } = await suiteNamespace("plat"));
  operator = startOperator(namespace);
});

afterAll(async () => {
  await operator?.kill();
  await removeNamespace?.();
});

const pods = (label: string) =>
  listObjects<V1Pod>(namespace, "v1", "Pod").then((all) =>
    all.filter(
      (p) => p.metadata?.labels?.["app.kubernetes.io/name"] === label && !p.metadata?.deletionTimestamp,
    ),
  );

describe.sequential("platform lifecycle through the CLI", () => {
  it("installs 0.0.9 to Running with every component Ready and every object owned", {
    timeout: 300_000,
  }, async () => {
    const result = await cli(namespace, "install", "--dev", "--version", "0.0.9", "--timeout", "4m");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("platform slipway is Running at 0.0.9 (7/7 ready)");
    expect(result.stdout).toMatch(/postgres\s+Ready 1\/1 0\.0\.9/);

    const platform = await readPlatform(namespace);
    expect(platform.status).toMatchObject({ phase: "Running", version: "0.0.9", ready: "7/7" });
    expect(platform.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    const components = await listComponents(namespace);
    expect(components).toHaveLength(componentCount);
    for (const component of components) {
      expect(component.status?.phase, component.metadata.name).toBe("Ready");
      expect(component.metadata.ownerReferences?.[0]).toMatchObject({
        kind: "Platform",
        uid: platform.metadata.uid,
      });
    }
    const componentUids = new Set(components.map((c) => c.metadata.uid));
    for (const [apiVersion, kind] of ownedKinds) {
      const objects = await listObjects(namespace, apiVersion, kind);
      expect(objects.length, kind).toBeGreaterThan(0);
      for (const object of objects) {
        const owner = object.metadata?.ownerReferences?.find((ref) => ref.controller);
        expect(componentUids.has(owner?.uid), `${kind} ${object.metadata?.name} owned by a Component`).toBe(
          true,
        );
      }
    }
    const claims = await listObjects<V1PersistentVolumeClaim>(namespace, "v1", "PersistentVolumeClaim");
    expect(
      claims.map((c) => [c.metadata?.name, c.spec?.resources?.requests?.storage, c.spec?.accessModes]).sort(),
    ).toEqual([
      ["slipway-api-server-builder-cache", "25Gi", ["ReadWriteOnce"]],
      ["slipway-object-store-artifacts", "50Gi", ["ReadWriteOnce"]],
      ["slipway-postgres-database", "10Gi", ["ReadWriteOnce"]],
      ["slipway-registry-registry", "25Gi", ["ReadWriteOnce"]],
    ]);
    // no class named: the cluster's default class was used
    expect(claims.every((c) => c.spec?.storageClassName === "standard")).toBe(true);

    // the phase transitions were recorded as Events on the Platform
    const events = await eventually(
      "the Platform's Running Event",
      () =>
        listObjects<KubernetesObject & { reason?: string; regarding?: { kind?: string } }>(
          namespace,
          "events.k8s.io/v1",
          "Event",
        ),
      (list) => list.some((e) => e.regarding?.kind === "Platform" && e.reason === "Running"),
    );
    expect(events.some((e) => e.regarding?.kind === "Platform" && e.reason === "Installing")).toBe(true);
  });

  it("refuses a second install into the namespace and changes nothing", async () => {
    const before = await readPlatform(namespace);
    const result = await cli(namespace, "install", "--dev", "--version", "0.1.0");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("already exists in namespace");
    expect(result.stdout).toContain("nothing changed");
    const after = await readPlatform(namespace);
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(after.spec).toEqual(before.spec);
  });

  it("undoes a hand edit of a workload's replicas or image", { timeout: 120_000 }, async () => {
    await kubectl("-n", namespace, "scale", "deployment", "slipway-mlflow", "--replicas=3");
    await kubectl(
      "-n",
      namespace,
      "set",
      "image",
      "deployment/slipway-registry",
      "registry=docker.io/library/busybox:1.36",
    );
    const pinned = findRelease("0.0.9")?.images.registry;
    await eventually(
      "mlflow back at 1 replica and the registry at its pinned image",
      () => listObjects<V1Deployment>(namespace, "apps/v1", "Deployment"),
      (deployments) => {
        const named = (name: string) => deployments.find((d) => d.metadata?.name === name)?.spec;
        return (
          named("slipway-mlflow")?.replicas === 1 &&
          named("slipway-registry")?.template.spec?.containers[0]?.image === pinned
        );
      },
    );
    const status = await cli(namespace, "status", "--wait", "Running", "--timeout", "1m");
    expect(status.code, status.stderr).toBe(0);
  });

  it("refuses an update to an unknown version", async () => {
    const unknown = await cli(namespace, "update", "--version", "9.9.9");
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr.trim()).toBe(
      "error: --version 9.9.9 is not a known Slipway release (known: 0.0.9, 0.1.0, 0.2.0)",
    );
    const platform = await readPlatform(namespace);
    expect(platform.spec.version).toBe("0.0.9");
  });

  it("updates to 0.1.0 in dependency order, then runs at 0.1.0", { timeout: 300_000 }, async () => {
    // Snapshots of every Component and workload: when each workload took its 0.1.0 image, and when
    // each Component was Ready at 0.1.0.
    const images = findRelease("0.1.0")?.images as Record<string, string>;
    const rolledAt = new Map<string, number>();
    const readyAt = new Map<string, number>();
    let snapshot = 0;
    let recording = true;
    const recorder = (async () => {
      while (recording) {
        // workloads first, then Components: a workload changed after its dependency was Ready is
        // then always seen with that Ready in the same snapshot
        const [deployments, statefulSets] = await Promise.all([
          listObjects<V1Deployment>(namespace, "apps/v1", "Deployment"),
          listObjects<V1StatefulSet>(namespace, "apps/v1", "StatefulSet"),
        ]);
        const components = await listComponents(namespace);
        snapshot++;
        for (const workload of [...deployments, ...statefulSets]) {
          const name = workload.metadata?.labels?.["app.kubernetes.io/name"] ?? "";
          const image = workload.spec?.template.spec?.containers[0]?.image;
          if (image === images[name] && !rolledAt.has(name)) rolledAt.set(name, snapshot);
        }
        for (const c of components) {
          const name = c.spec.component;
          const ready =
            c.spec.version === "0.1.0" &&
            c.status?.version === "0.1.0" &&
            c.status?.phase === "Ready" &&
            c.status.observedGeneration === c.metadata.generation;
          if (ready && !readyAt.has(name)) readyAt.set(name, snapshot);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const result = await cli(namespace, "update", "--version", "0.1.0", "--timeout", "4m");
    recording = false;
    await recorder;
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Running at 0.1.0 (7/7 ready)");

    const components = await listComponents(namespace);
    for (const component of components) {
      for (const dependency of component.spec.dependencies) {
        const dependencyReady = readyAt.get(dependency) ?? Number.POSITIVE_INFINITY;
        const rolled = rolledAt.get(component.spec.component) ?? -1;
        expect(
          dependencyReady,
          `${dependency} Ready at 0.1.0 before ${component.spec.component}'s workload changes`,
        ).toBeLessThanOrEqual(rolled);
      }
    }
    expect(rolledAt.get("web")).toBeGreaterThan(rolledAt.get("postgres") ?? Number.POSITIVE_INFINITY);
    const statefulSets = await listObjects<V1StatefulSet>(namespace, "apps/v1", "StatefulSet");
    expect(statefulSets[0]?.spec?.template.spec?.containers[0]?.image).toBe(
      "docker.io/library/postgres:16.6",
    );
    expect((await readPlatform(namespace)).status).toMatchObject({ phase: "Running", version: "0.1.0" });

    const versions = await cli(namespace, "version", "-o", "json");
    expect(JSON.parse(versions.stdout)).toEqual({
      cli: ownVersion,
      operator: null, // outside the cluster (install --dev)
      platform: "0.1.0",
      catalog: ["0.0.9", "0.1.0", "0.2.0"],
    });

    const downgrade = await cli(namespace, "update", "--version", "0.0.9");
    expect(downgrade.code).not.toBe(0);
    expect(downgrade.stderr.trim()).toBe(
      "error: --version 0.0.9 is older than the running 0.1.0: a downgrade needs --force",
    );
  });

  it("refuses to shrink a size (naming the field) and resizes the claim when it grows", {
    timeout: 120_000,
  }, async () => {
    const shrink = await kubectl(
      "-n",
      namespace,
      "patch",
      "platform",
      "slipway",
      "--type=merge",
      "-p",
      '{"spec":{"storage":{"artifactsSize":"10Gi"}}}',
    ).catch((error: { stderr: string }) => error);
    expect("stderr" in shrink && shrink.stderr).toContain("spec.storage.artifactsSize can only grow");

    const grow = await cli(namespace, "patch", "--set", "storage.artifactsSize=60Gi", "--timeout", "2m");
    expect(grow.code).toBe(0);
    await eventually(
      "the artifacts claim resized to 60Gi",
      () => listObjects<V1PersistentVolumeClaim>(namespace, "v1", "PersistentVolumeClaim"),
      (claims) =>
        claims.find((c) => c.metadata?.name === "slipway-object-store-artifacts")?.spec?.resources?.requests
          ?.storage === "60Gi",
    );
  });

  it("patch --log-level DEBUG reaches every component's pods", { timeout: 300_000 }, async () => {
    const result = await cli(namespace, "patch", "--log-level", "DEBUG", "--timeout", "4m");
    expect(result.code).toBe(0);
    for (const component of await listComponents(namespace)) {
      const running = await pods(component.spec.component);
      expect(running.length, component.spec.component).toBeGreaterThan(0);
      for (const pod of running) {
        const env = pod.spec?.containers[0]?.env ?? [];
        expect(env, pod.metadata?.name).toContainEqual({ name: "SLIPWAY_LOG_LEVEL", value: "DEBUG" });
      }
    }
  });

  it("restart rolls every component", { timeout: 300_000 }, async () => {
    const before = new Set((await listObjects<V1Pod>(namespace, "v1", "Pod")).map((p) => p.metadata?.uid));
    const result = await cli(namespace, "restart", "--timeout", "4m");
    expect(result.code).toBe(0);
    const platform = await readPlatform(namespace);
    for (const component of await listComponents(namespace)) {
      const running = await pods(component.spec.component);
      expect(running.length).toBeGreaterThan(0);
      for (const pod of running) {
        expect(before.has(pod.metadata?.uid), `${pod.metadata?.name} is a new pod`).toBe(false);
        expect(pod.metadata?.annotations?.["platform.slipway.dev/restartedAt"]).toBe(
          platform.spec.restartedAt,
        );
      }
    }
  });

  it("stop scales every workload to 0 and keeps the claims; start brings it back to Running", {
    timeout: 300_000,
  }, async () => {
    const stop = await cli(namespace, "stop", "--timeout", "4m");
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain("is Stopped");
    const deployments = await listObjects<V1Deployment>(namespace, "apps/v1", "Deployment");
    const statefulSets = await listObjects<V1StatefulSet>(namespace, "apps/v1", "StatefulSet");
    expect([...deployments, ...statefulSets].map((w) => w.spec?.replicas)).toEqual(
      Array(componentCount).fill(0),
    );
    expect(await listObjects(namespace, "v1", "PersistentVolumeClaim")).toHaveLength(4);
    expect((await readPlatform(namespace)).status?.phase).toBe("Stopped");

    const start = await cli(namespace, "start", "--timeout", "4m", "-o", "json");
    expect(start.code).toBe(0);
    expect(JSON.parse(start.stdout).status).toMatchObject({
      phase: "Running",
      version: "0.1.0",
      ready: "7/7",
    });
  });

  it("uninstall removes everything of Slipway but the namespace it did not create; a second uninstall removes nothing", {
    timeout: 300_000,
  }, async () => {
    const first = await cli(namespace, "uninstall", "--yes", "--keep-crds", "--timeout", "4m");
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`left namespace ${namespace}: slipway install did not create it`);
    const namespaces = await kubectl("get", "namespaces", "-o", "name");
    expect(namespaces.stdout).toContain(`namespace/${namespace}\n`);
    expect(await listComponents(namespace)).toEqual([]);
    const second = await cli(namespace, "uninstall", "--yes", "--keep-crds");
    expect(second.code).toBe(0);
    expect(second.stdout).not.toContain("removed");
  });
});
