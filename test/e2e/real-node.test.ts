/**
 * Real containers on the shared control plane's real node (containerd, runc, the kubelet, kube-proxy,
 * CoreDNS): what kwok's fake nodes cannot show. Skipped, with the reason (test/support/allowed-skips.ts), when the shared
 * plane has no real node (SLIPWAY_REAL_NODE=0, or another directory on this machine runs the one real node).
 */
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { promisify } from "node:util";
import { AppsV1Api, CoreV1Api, DiscoveryV1Api, type V1Container, type V1Pod } from "@kubernetes/client-node";
import { describe, expect, inject, it } from "vitest";
import { binaryPaths } from "../../src/dev/binaries.ts";
import { up } from "../../src/dev/cluster.ts";
import { localImageReferences } from "../../src/dev/real-node/images.ts";
import { realNodePlacement, realNodeStorageClass } from "../../src/dev/real-node/objects.ts";
import { skipFor } from "../support/allowed-skips.ts";
import { adminConfig, eventually, testNamespace } from "../support/cluster.ts";

const run = promisify(execFile);
const skipped = inject("realNodeSkipped");
const image = localImageReferences().slipway;
const node = "/nodejs/bin/node";
/** A tiny HTTP server in the Slipway image: "ok" on every path, on port 8080. */
const httpServer = `require("node:http").createServer((q, s) => s.end("ok from " + process.env.HOSTNAME)).listen(8080)`;

const core = () => adminConfig().makeApiClient(CoreV1Api);
const kubectl = (...args: string[]) =>
  run(binaryPaths().kubectl, ["--kubeconfig", inject("kubeconfig"), ...args], { timeout: 60_000 });

function container(name: string, script: string, extra: Partial<V1Container> = {}): V1Container {
  return { name, image, imagePullPolicy: "IfNotPresent", command: [node, "-e", script], ...extra };
}

async function createPod(
  namespace: string,
  name: string,
  spec: Omit<V1Pod["spec"] & object, "containers"> & { containers: V1Container[] },
) {
  await core().createNamespacedPod({
    namespace,
    body: { metadata: { name }, spec: { ...realNodePlacement(), ...spec } },
  });
}

/** What a person needs when a pod did not reach its phase: phase, container states, last log lines. */
async function podReport(namespace: string, name: string): Promise<string> {
  const pod = await core().readNamespacedPod({ namespace, name });
  const states = (pod.status?.containerStatuses ?? []).map((c) => `${c.name}: ${JSON.stringify(c.state)}`);
  const logs = await kubectl("logs", "-n", namespace, name, "--tail", "20").then(
    ({ stdout }) => stdout,
    (error: Error) => `(no logs: ${error.message})`,
  );
  return `pod ${name}: phase ${pod.status?.phase}; ${states.join("; ")}\nlast log lines:\n${logs}`;
}

/** Waits for the pod's `phase`; fails at once, with its report, when it ends in another phase. */
async function podPhase(namespace: string, name: string, phase: string): Promise<V1Pod> {
  const pod = await eventually(
    `pod ${name} ${phase}`,
    () => core().readNamespacedPod({ namespace, name }),
    (pod) =>
      pod.status?.phase === phase || pod.status?.phase === "Failed" || pod.status?.phase === "Succeeded",
    90_000,
  ).catch(async (error: Error) => {
    throw new Error(`${error.message.split("\n")[0]}\n${await podReport(namespace, name)}`);
  });
  if (pod.status?.phase !== phase)
    throw new Error(
      `pod ${name} ended ${pod.status?.phase}, not ${phase}\n${await podReport(namespace, name)}`,
    );
  return pod;
}

describe("the real node", skipFor(skipped), () => {
  it("runs a Deployment of the Slipway image to Available through its readiness probe, reachable by Service DNS name", {
    timeout: 240_000,
  }, async () => {
    const namespace = await testNamespace("rn");
    const labels = { app: "web" };
    await adminConfig()
      .makeApiClient(AppsV1Api)
      .createNamespacedDeployment({
        namespace,
        body: {
          metadata: { name: "web" },
          spec: {
            replicas: 1,
            selector: { matchLabels: labels },
            template: {
              metadata: { labels },
              spec: {
                ...realNodePlacement(),
                containers: [
                  container("web", httpServer, {
                    ports: [{ containerPort: 8080 }],
                    readinessProbe: { httpGet: { path: "/healthz", port: 8080 }, periodSeconds: 1 },
                  }),
                ],
              },
            },
          },
        },
      });
    await core().createNamespacedService({
      namespace,
      body: {
        metadata: { name: "web" },
        spec: { selector: labels, ports: [{ port: 80, targetPort: 8080 }] },
      },
    });
    await eventually(
      "Deployment web Available",
      () => adminConfig().makeApiClient(AppsV1Api).readNamespacedDeployment({ namespace, name: "web" }),
      (d) => d.status?.conditions?.some((c) => c.type === "Available" && c.status === "True") ?? false,
      180_000,
    );

    // another pod resolves the Service by name (CoreDNS) and reaches it through its ClusterIP
    // (kube-proxy). Both learn of the new Service and its endpoints a moment after the Deployment is
    // Available (CoreDNS from its watch, kube-proxy on its next sync), so the client retries for a
    // bounded while (150 attempts, 200 ms apart), as any client of a new Service must; every attempt is bounded, so a connection
    // that never answers fails the pod instead of hanging it, and each failure is logged.
    const ready = await eventually(
      "Service web's endpoints ready",
      () =>
        adminConfig()
          .makeApiClient(DiscoveryV1Api)
          .listNamespacedEndpointSlice({ namespace, labelSelector: "kubernetes.io/service-name=web" }),
      (slices) => slices.items.some((slice) => slice.endpoints?.some((e) => e.conditions?.ready)),
    );
    expect(ready.items.length).toBeGreaterThan(0);
    const client = `const attempt = (n) => require("node:dns").promises.lookup("web")
      .then(({ address }) => { console.log("resolved " + address); return fetch("http://web/", { signal: AbortSignal.timeout(5000) }); })
      .then((r) => r.text()).then((t) => console.log(t))
      .catch((e) => { console.log("attempt failed: " + (e.cause?.code ?? e.code ?? e.message)); if (n === 150) process.exit(1); return new Promise((r) => setTimeout(r, 200)).then(() => attempt(n + 1)); });
    attempt(0);`;
    await createPod(namespace, "client", {
      restartPolicy: "Never",
      containers: [container("client", client)],
    });
    await podPhase(namespace, "client", "Succeeded");
    const { stdout: logs } = await kubectl("logs", "-n", namespace, "client");
    const service = await core().readNamespacedService({ namespace, name: "web" });
    expect(logs).toContain(`resolved ${service.spec?.clusterIP}`);
    expect(logs).toMatch(/ok from web-/);

    const { stdout: exec } = await kubectl(
      "exec",
      "-n",
      namespace,
      "deploy/web",
      "--",
      node,
      "-e",
      "console.log(6 * 7)",
    );
    expect(exec.trim()).toBe("42");
  });

  it("shows a container that exits non-zero in CrashLoopBackOff with its restart count and last termination message", {
    timeout: 300_000,
  }, async () => {
    const namespace = await testNamespace("rn");
    const script = `console.error("giving up: no config"); process.exit(3)`;
    await createPod(namespace, "crash", {
      containers: [container("crash", script, { terminationMessagePolicy: "FallbackToLogsOnError" })],
    });
    const pod = await eventually(
      "CrashLoopBackOff",
      () => core().readNamespacedPod({ namespace, name: "crash" }),
      (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === "CrashLoopBackOff",
      240_000,
    );
    const status = pod.status?.containerStatuses?.[0];
    expect(status?.restartCount).toBeGreaterThanOrEqual(1);
    expect(status?.lastState?.terminated?.exitCode).toBe(3);
    expect(status?.lastState?.terminated?.message).toContain("giving up: no config");
  });

  it("keeps a PersistentVolumeClaim's data across pods", { timeout: 180_000 }, async () => {
    const namespace = await testNamespace("rn");
    await core().createNamespacedPersistentVolumeClaim({
      namespace,
      body: {
        metadata: { name: "data" },
        spec: {
          storageClassName: realNodeStorageClass,
          accessModes: ["ReadWriteOnce"],
          resources: { requests: { storage: "100Mi" } },
        },
      },
    });
    const withData = (name: string, script: string) =>
      createPod(namespace, name, {
        restartPolicy: "Never",
        containers: [container(name, script, { volumeMounts: [{ name: "data", mountPath: "/data" }] })],
        volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data" } }],
      });
    const token = `written-${Date.now()}`;
    await withData("writer", `require("node:fs").writeFileSync("/data/token", "${token}")`);
    await podPhase(namespace, "writer", "Succeeded");
    await core().deleteNamespacedPod({ namespace, name: "writer" });
    await withData("reader", `console.log(require("node:fs").readFileSync("/data/token", "utf8"))`);
    await podPhase(namespace, "reader", "Succeeded");
    expect((await kubectl("logs", "-n", namespace, "reader")).stdout.trim()).toBe(token);

    // without its claim the volume is Released; the next `up` empties it and makes it Available again
    const claim = await core().readNamespacedPersistentVolumeClaim({ namespace, name: "data" });
    const volume = claim.spec?.volumeName ?? "";
    await core().deleteNamespacedPod({ namespace, name: "reader", gracePeriodSeconds: 0 });
    await core().deleteNamespacedPersistentVolumeClaim({ namespace, name: "data" });
    await eventually(
      `${volume} Released`,
      () => core().readPersistentVolume({ name: volume }),
      (pv) => pv.status?.phase === "Released",
    );
    await up({ dir: inject("devDir") });
    const freed = await eventually(
      `${volume} Available`,
      () => core().readPersistentVolume({ name: volume }),
      (pv) => pv.status?.phase === "Available",
    );
    expect(readdirSync(freed.spec?.hostPath?.path ?? "")).toEqual([]);
  });
});
