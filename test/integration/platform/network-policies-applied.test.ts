/**
 * The platform applies one NetworkPolicy per component, with the bundle's RBAC only, and its
 * selectors select the real pods: each policy its own component's pods, each peer its dependents'
 * pods and an image build's Job pod (made by the Job controller from the builds code's labels). The
 * garbage collector removes them with the platform. Whether a network plugin enforces them is not
 * tested here (the local real node's does not: docs/security.md).
 */
import {
  BatchV1Api,
  CoreV1Api,
  CustomObjectsApi,
  NetworkingV1Api,
  type V1NetworkPolicy,
} from "@kubernetes/client-node";
import { beforeAll, describe, expect, it } from "vitest";
import { ProviderKind } from "../../../src/apis/pipelines/provider.ts";
import { ComponentKind } from "../../../src/apis/platform/component.ts";
import { PlatformKind } from "../../../src/apis/platform/platform.ts";
import { componentNames as platformComponents } from "../../../src/apis/platform/schemas.ts";
import { jobLabels } from "../../../src/builds/build-job.ts";
import { labels } from "../../../src/platform/component-objects.ts";
import { platformControllers } from "../../../src/platform/controllers.ts";
import { buildPods } from "../../../src/platform/network-policies.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { forbiddenRequests, operatorWithBundleRbac } from "../../support/operator-rbac.ts";
import { createPlatform } from "../../support/platform.ts";

const core = () => adminConfig().makeApiClient(CoreV1Api);
const networking = () => adminConfig().makeApiClient(NetworkingV1Api);
const componentNames = platformComponents.map((name) => `slipway-${name}`);

interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** A label selector as the API server's list takes it (the operators the policies use). */
function selectorText(selector: Selector): string {
  const equal = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => `${key}=${value}`);
  const expressions = (selector.matchExpressions ?? []).map((e) =>
    e.operator === "Exists" ? e.key : `${e.key} ${e.operator.toLowerCase()} (${(e.values ?? []).join(",")})`,
  );
  return [...equal, ...expressions].join(",");
}

const podsSelected = async (namespace: string, selector: Selector) =>
  (await core().listNamespacedPod({ namespace, labelSelector: selectorText(selector) })).items
    .map((pod) => pod.metadata?.labels?.[labels.component] ?? pod.metadata?.labels?.["job-name"])
    .sort();

/** Starts the Job of an image build (pod labels from the builds code); its pod is made by the Job controller. */
async function buildJob(namespace: string): Promise<void> {
  const build = { metadata: { name: "b", namespace }, spec: {} } as Parameters<typeof jobLabels>[0];
  const podLabels = jobLabels(build, "registry.example/app:1");
  await adminConfig()
    .makeApiClient(BatchV1Api)
    .createNamespacedJob({
      namespace,
      body: {
        metadata: { name: "build-b" },
        spec: {
          template: {
            metadata: { labels: podLabels },
            spec: { restartPolicy: "Never", containers: [{ name: "kaniko", image: "example.org/kaniko:1" }] },
          },
        },
      },
    });
}

beforeAll(() => installCrds([PlatformKind, ComponentKind, ProviderKind]));

describe("the platform's NetworkPolicies", () => {
  it("exist after install, one per component, selecting the real pods; removed on uninstall", async () => {
    const namespace = await testNamespace("netpol-applied");
    const manager = await operatorWithBundleRbac(namespace, platformControllers());
    await createPlatform(namespace);
    await buildJob(namespace);
    const policies = await eventually(
      "a NetworkPolicy per component, each admitting its dependents",
      async () => (await networking().listNamespacedNetworkPolicy({ namespace })).items,
      (items) =>
        items.length === componentNames.length &&
        (items.find((p) => p.metadata?.name === "slipway-postgres")?.spec?.ingress?.[0]?._from?.length ??
          0) === 2,
      90_000,
    );
    expect(policies.map((p) => p.metadata?.name).sort()).toEqual([...componentNames].sort());
    const policy = (name: string) => policies.find((p) => p.metadata?.name === name) as V1NetworkPolicy;
    expect(policy("slipway-postgres").metadata?.ownerReferences?.map((o) => o.kind)).toEqual(["Component"]);

    await eventually(
      "every component's pods and the build's pod",
      async () => (await core().listNamespacedPod({ namespace })).items.length,
      (count) => count >= componentNames.length + 1,
      90_000,
    );
    for (const name of componentNames) {
      expect(await podsSelected(namespace, policy(name).spec?.podSelector as Selector), name).toEqual([name]);
    }
    const admitted = async (name: string) => {
      const peers = (policy(name).spec?.ingress ?? []).flatMap((rule) => rule._from ?? []);
      const selected = await Promise.all(
        peers
          .filter((peer) => peer.podSelector)
          .map((peer) => podsSelected(namespace, peer.podSelector as Selector)),
      );
      return selected.flat().sort();
    };
    expect(await admitted("slipway-postgres")).toEqual(["slipway-api-server", "slipway-mlflow"]);
    expect(await admitted("slipway-registry")).toEqual(["build-b", "slipway-api-server"]);
    expect(await admitted("slipway-object-store")).toEqual([
      "build-b",
      "slipway-api-server",
      "slipway-mlflow",
      "slipway-workflow-engine",
    ]);
    expect(await admitted("slipway-web")).toEqual([]);
    expect(await podsSelected(namespace, buildPods.podSelector as Selector)).toEqual(["build-b"]);
    expect(await forbiddenRequests(manager)).toBe(0);

    await adminConfig().makeApiClient(CustomObjectsApi).deleteNamespacedCustomObject({
      group: PlatformKind.group,
      version: PlatformKind.version,
      namespace,
      plural: PlatformKind.plural,
      name: "slipway",
    });
    await eventually(
      "no NetworkPolicy left after the platform's uninstall",
      async () => (await networking().listNamespacedNetworkPolicy({ namespace })).items.length,
      (count) => count === 0,
      120_000,
    );
  });
});
