import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  RbacAuthorizationV1Api,
  setHeaderOptions,
  type V1Deployment,
  type V1Job,
  VersionApi,
} from "@kubernetes/client-node";
import { describe, expect, inject, it } from "vitest";
import { binaryPaths } from "../../src/dev/binaries.ts";
import { pinnedVersions } from "../../src/dev/versions.ts";
import { adminConfig, eventually, testNamespace } from "../support/cluster.ts";

const run = promisify(execFile);
const labels = { app: "probe" };
const container = { name: "main", image: "registry.example/probe:1" };

function deployment(name: string, replicas: number): V1Deployment {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [container] } },
    },
  };
}

function job(name: string, annotations: Record<string, string> = {}): V1Job {
  return {
    metadata: { name },
    spec: {
      backoffLimit: 0,
      template: { metadata: { annotations }, spec: { restartPolicy: "Never", containers: [container] } },
    },
  };
}

const condition = (conditions: { type: string; status: string }[] | undefined, type: string) =>
  conditions?.find((c) => c.type === type)?.status;

describe("the local control plane", () => {
  const config = () => adminConfig();

  it("serves the pinned Kubernetes version", async () => {
    const version = await config().makeApiClient(VersionApi).getCode();
    expect(version.gitVersion).toBe(pinnedVersions().kube);
  });

  it("has fake nodes that are Ready", async () => {
    const nodes = await config().makeApiClient(CoreV1Api).listNode();
    expect(nodes.items.length).toBeGreaterThanOrEqual(3);
    for (const node of nodes.items) expect(condition(node.status?.conditions, "Ready")).toBe("True");
  });

  it("makes a Deployment Available with ready pods", async () => {
    const namespace = await testNamespace();
    const apps = config().makeApiClient(AppsV1Api);
    await apps.createNamespacedDeployment({ namespace, body: deployment("web", 2) });
    const ready = await eventually(
      "deployment Available",
      () => apps.readNamespacedDeployment({ namespace, name: "web" }),
      (d) => condition(d.status?.conditions, "Available") === "True" && d.status?.readyReplicas === 2,
    );
    expect(ready.status?.availableReplicas).toBe(2);
  });

  it("completes a Job", async () => {
    const namespace = await testNamespace();
    const batch = config().makeApiClient(BatchV1Api);
    await batch.createNamespacedJob({ namespace, body: job("ok") });
    const done = await eventually(
      "job Complete",
      () => batch.readNamespacedJob({ namespace, name: "ok" }),
      (j) => condition(j.status?.conditions, "Complete") === "True",
    );
    expect(done.status?.succeeded).toBe(1);
  });

  it("fails a Job whose pod is marked to fail, with the reason and exit code asked for", async () => {
    const namespace = await testNamespace();
    const kube = config();
    const batch = kube.makeApiClient(BatchV1Api);
    await batch.createNamespacedJob({
      namespace,
      body: job("bad", {
        "sim.slipway.dev/outcome": "fail",
        "sim.slipway.dev/reason": "OOMKilled",
        "sim.slipway.dev/exit-code": "137",
      }),
    });
    const failed = await eventually(
      "job Failed",
      () => batch.readNamespacedJob({ namespace, name: "bad" }),
      (j) => condition(j.status?.conditions, "Failed") === "True",
    );
    expect(failed.status?.succeeded ?? 0).toBe(0);
    const pods = await kube
      .makeApiClient(CoreV1Api)
      .listNamespacedPod({ namespace, labelSelector: "job-name=bad" });
    const terminated = pods.items[0]?.status?.containerStatuses?.[0]?.state?.terminated;
    expect(terminated).toMatchObject({ reason: "OOMKilled", exitCode: 137 });
  });

  it("garbage-collects an object after its owner is deleted", async () => {
    const namespace = await testNamespace();
    const core = config().makeApiClient(CoreV1Api);
    const owner = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "owner" } } });
    await core.createNamespacedSecret({
      namespace,
      body: {
        metadata: {
          name: "owned",
          ownerReferences: [
            {
              apiVersion: "v1",
              kind: "ConfigMap",
              name: "owner",
              uid: owner.metadata?.uid as string,
              controller: true,
            },
          ],
        },
      },
    });
    await core.deleteNamespacedConfigMap({ namespace, name: "owner" });
    await eventually(
      "owned secret gone",
      () => core.listNamespacedSecret({ namespace, fieldSelector: "metadata.name=owned" }),
      (list) => list.items.length === 0,
    );
  });

  it("removes a namespace's contents when the namespace is deleted", async () => {
    const core = config().makeApiClient(CoreV1Api);
    const apps = config().makeApiClient(AppsV1Api);
    const namespace = await testNamespace("gone");
    await apps.createNamespacedDeployment({ namespace, body: deployment("web", 1) });
    await eventually(
      "a pod exists",
      () => core.listNamespacedPod({ namespace }),
      (list) => list.items.length === 1,
    );
    await core.deleteNamespace({ name: namespace });
    await eventually(
      "namespace gone",
      () => core.listNamespace({ fieldSelector: `metadata.name=${namespace}` }),
      (list) => list.items.length === 0,
    );
    expect((await core.listNamespacedPod({ namespace })).items).toHaveLength(0);
    expect((await apps.listNamespacedDeployment({ namespace })).items).toHaveLength(0);
  });

  it("enforces RBAC: a service-account token gets 403 without a role and 200 with one", async () => {
    const namespace = await testNamespace();
    const admin = config();
    const core = admin.makeApiClient(CoreV1Api);
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: "nobody" } } });
    const token = await core.createNamespacedServiceAccountToken({
      namespace,
      name: "nobody",
      body: { spec: { audiences: [], expirationSeconds: 600 } },
    });
    const asNobody = new KubeConfig();
    const cluster = admin.getCurrentCluster();
    if (!cluster) throw new Error("no cluster in the admin kubeconfig");
    asNobody.loadFromOptions({
      clusters: [cluster],
      users: [{ name: "nobody", token: token.status?.token }],
      contexts: [{ name: "nobody", cluster: cluster.name, user: "nobody" }],
      currentContext: "nobody",
    });
    const listPods = () => asNobody.makeApiClient(CoreV1Api).listNamespacedPod({ namespace });
    await expect(listPods()).rejects.toMatchObject({ code: 403 });

    const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace,
      body: {
        metadata: { name: "pod-reader" },
        rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["list"] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: "pod-reader" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "pod-reader" },
        subjects: [{ kind: "ServiceAccount", name: "nobody", namespace }],
      },
    });
    const allowed = await eventually(
      "RBAC grant applies",
      () => listPods().then(() => true),
      Boolean,
      10_000,
    );
    expect(allowed).toBe(true);
  });

  it("binds a PVC through the default storage class and resizes it when its request grows", async () => {
    const namespace = await testNamespace();
    const core = config().makeApiClient(CoreV1Api);
    await core.createNamespacedPersistentVolumeClaim({
      namespace,
      body: {
        metadata: { name: "data" },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
      },
    });
    const bound = await eventually(
      "PVC Bound",
      () => core.readNamespacedPersistentVolumeClaim({ namespace, name: "data" }),
      (pvc) => pvc.status?.phase === "Bound",
    );
    expect(bound.spec?.storageClassName).toBe("standard");
    await core.patchNamespacedPersistentVolumeClaim(
      {
        namespace,
        name: "data",
        body: { spec: { resources: { requests: { storage: "2Gi" } } } },
      },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    await eventually(
      "PVC resized",
      () => core.readNamespacedPersistentVolumeClaim({ namespace, name: "data" }),
      (pvc) => pvc.status?.capacity?.storage === "2Gi",
    );
  });

  it("works with the stock kubectl: get nodes, apply, wait", async () => {
    const namespace = await testNamespace();
    const kubectl = (...args: string[]) =>
      run(binaryPaths().kubectl, ["--kubeconfig", inject("kubeconfig"), ...args], { timeout: 90_000 });
    const nodes = await kubectl("get", "nodes", "-o", "name");
    expect(nodes.stdout).toContain("node/kwok-node-0");
    const manifest = join(tmpdir(), `${namespace}.json`);
    await writeFile(
      manifest,
      JSON.stringify({ apiVersion: "apps/v1", kind: "Deployment", ...deployment("api", 1) }),
    );
    await kubectl("-n", namespace, "apply", "-f", manifest);
    const waited = await kubectl(
      "-n",
      namespace,
      "wait",
      "--for=condition=Available",
      "deployment/api",
      "--timeout=60s",
    );
    expect(waited.stdout).toContain("condition met");
  });
});
