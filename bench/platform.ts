import type { KubeConfig, V1Deployment, V1EndpointSlice, V1StatefulSet } from "@kubernetes/client-node";
import pino from "pino";
import { crdManifest } from "../src/apis/crd.ts";
import type { ComponentResource } from "../src/apis/platform/component.ts";
import { ComponentKind, PlatformKind, type PlatformResource } from "../src/apis/platform/index.ts";
import { KubeClient } from "../src/kube/client.ts";
import { ResourceTypes } from "../src/kube/discovery.ts";
import { resourcePath } from "../src/kube/keys.ts";
import { Manager } from "../src/kube/manager.ts";
import { RestClient } from "../src/kube/rest.ts";
import type { KubeObject } from "../src/kube/types.ts";
import { findRelease } from "../src/platform/catalog.ts";
import {
  renderClaims,
  renderService,
  renderServiceAccount,
  renderWorkload,
} from "../src/platform/component-objects.ts";
import { rolloutUnfinished, workloadView } from "../src/platform/component-status.ts";
import { platformControllers } from "../src/platform/controllers.ts";
import { type DesiredComponent, renderComponents } from "../src/platform/render.ts";
import { types } from "../src/platform/resource-types.ts";
import type { BenchFigures } from "./run.ts";
import { benchControlPlane, median, sleep, until } from "./support.ts";

async function createNamespace(rest: RestClient, name: string) {
  await rest.request("POST", "/api/v1/namespaces", {
    body: { apiVersion: "v1", kind: "Namespace", metadata: { name } },
  });
}

/** The operator: create the Platform, set the new version, each time until Running at it. */
async function operatorRun(kubeConfig: KubeConfig, client: KubeClient, rest: RestClient, namespace: string) {
  const manager = new Manager({
    kubeConfig,
    namespace,
    fieldManager: "slipway-bench",
    log: pino({ level: "silent" }),
  });
  for (const controller of platformControllers()) manager.add(controller);
  await manager.start();
  const path = resourcePath(types.platform, { namespace, name: "slipway" });
  const runningAt = (version: string) => async () => {
    const p = await rest.request<PlatformResource>("GET", path);
    return (
      p.status?.phase === "Running" &&
      p.status.version === version &&
      p.status.observedGeneration === p.metadata.generation
    );
  };
  try {
    const installStarted = performance.now();
    await client.apply({
      apiVersion: PlatformKind.apiVersion,
      kind: PlatformKind.kind,
      metadata: { name: "slipway", namespace },
      spec: { version: "0.0.9" },
    } as KubeObject);
    await until("operator install", runningAt("0.0.9"));
    const install = (performance.now() - installStarted) / 1000;
    const updateStarted = performance.now();
    await rest.request("PATCH", path, {
      body: { spec: { version: "0.1.0" } },
      contentType: "application/merge-patch+json",
    });
    await until("operator update", runningAt("0.1.0"));
    return { install, update: (performance.now() - updateStarted) / 1000 };
  } finally {
    await manager.stop();
  }
}

/** The floor: the same objects by a plain client, each component as soon as its dependencies are ready. */
async function floorRun(
  client: KubeClient,
  rest: RestClient,
  namespace: string,
  version: string,
  generation: number,
) {
  const release = findRelease(version);
  if (!release) throw new Error(version);
  const desired = renderComponents("slipway", "slipway", {}, release);
  const durations = new Map<string, number>();
  const done = new Map<string, Promise<void>>();
  const started = performance.now();
  const deploy = async (d: DesiredComponent) => {
    await Promise.all(d.spec.dependencies.map((dep) => done.get(dep)));
    const componentStarted = performance.now();
    const component: ComponentResource = {
      apiVersion: ComponentKind.apiVersion,
      kind: ComponentKind.kind,
      metadata: { name: d.objectName, namespace, uid: "00000000-0000-0000-0000-000000000000", generation },
      spec: d.spec,
    };
    const unowned = <T extends KubeObject>(object: T): T => ({
      ...object,
      metadata: { ...object.metadata, ownerReferences: undefined },
    });
    const account = renderServiceAccount(component);
    if (account) await client.apply(unowned(account));
    for (const claim of renderClaims(component)) await client.apply(unowned(claim));
    const service = renderService(component);
    if (service) await client.apply(unowned(service));
    const workload = unowned(renderWorkload(component));
    await client.apply(workload);
    const type = d.spec.workload === "StatefulSet" ? types.statefulSet : types.deployment;
    await until(`floor ${d.name}`, async () => {
      const current = await rest.request<V1Deployment | V1StatefulSet>(
        "GET",
        resourcePath(type, { namespace, name: d.objectName }),
      );
      const unfinished = rolloutUnfinished(generation, workloadView(current));
      if (unfinished || !service) return !unfinished;
      const slices = await rest.request<{ items: V1EndpointSlice[] }>(
        "GET",
        `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices`,
        { query: { labelSelector: `kubernetes.io/service-name=${d.objectName}` } },
      );
      return slices.items.some((s) => (s.endpoints ?? []).some((e) => e.conditions?.ready !== false));
    });
    durations.set(d.name, (performance.now() - componentStarted) / 1000);
  };
  for (const d of desired) done.set(d.name, deploy(d));
  await Promise.all(done.values());
  const seconds = (performance.now() - started) / 1000;
  const sequential = [...durations.values()].reduce((a, b) => a + b, 0);
  return { seconds, sequential };
}

interface Round {
  floor: Record<"install" | "update", { seconds: number; sequential: number }>;
  operator: { install: number; update: number };
}

/** Rounds of floor and operator runs; each figure is the median over the rounds. */
const roundCount = Number(process.env.SLIPWAY_BENCH_ROUNDS ?? 9);

export default async function bench(): Promise<BenchFigures> {
  const plane = await benchControlPlane("platform");
  const { kubeConfig } = plane;
  const rest = new RestClient(kubeConfig);
  const client = new KubeClient(rest, new ResourceTypes(rest), { fieldManager: "slipway-bench" });
  try {
    for (const kind of [PlatformKind, ComponentKind]) await client.apply(crdManifest(kind) as KubeObject);
    await sleep(2_000); // the CRDs served
    const rounds: Round[] = [];
    const namespaces: string[] = [];
    // round 0 warms up both (the operator's code is compiled on first use; a running operator is warm)
    for (let index = 0; index <= roundCount; index++) {
      const suffix = `${Date.now().toString(36)}-${index}`;
      const [operatorNs, floorNs] = [`bench-platform-op-${suffix}`, `bench-platform-floor-${suffix}`];
      for (const ns of [operatorNs, floorNs]) await createNamespace(rest, ns);
      namespaces.push(operatorNs, floorNs);
      const floor = async () => ({
        install: await floorRun(client, rest, floorNs, "0.0.9", 1),
        update: await floorRun(client, rest, floorNs, "0.1.0", 2),
      });
      const operator = () => operatorRun(kubeConfig, client, rest, operatorNs);
      // alternate which goes first, so that neither always meets a fresher control plane
      let round: Round;
      if (index % 2 === 0) round = { floor: await floor(), operator: await operator() };
      else {
        const operatorFirst = await operator();
        round = { floor: await floor(), operator: operatorFirst };
      }
      if (index > 0) rounds.push(round);
    }
    if (process.env.SLIPWAY_BENCH_VERBOSE) process.stderr.write(`${JSON.stringify(rounds)}\n`);
    for (const ns of namespaces) await rest.request("DELETE", `/api/v1/namespaces/${ns}`).catch(() => {});

    const figure = (of: (round: Round) => number) => Number(median(rounds.map(of)).toFixed(2));
    return {
      seconds: figure((r) => r.operator.install + r.operator.update),
      floor_seconds: figure((r) => r.floor.install.seconds + r.floor.update.seconds),
      rounds: rounds.length,
      install_seconds: figure((r) => r.operator.install),
      install_floor_seconds: figure((r) => r.floor.install.seconds),
      update_seconds: figure((r) => r.operator.update),
      update_floor_seconds: figure((r) => r.floor.update.seconds),
      sequential_seconds: figure((r) => r.floor.install.sequential + r.floor.update.sequential),
      saved_seconds: figure(
        (r) =>
          r.floor.install.sequential +
          r.floor.update.sequential -
          (r.floor.install.seconds + r.floor.update.seconds),
      ),
    };
  } finally {
    rest.close();
    await plane.stop();
  }
}
