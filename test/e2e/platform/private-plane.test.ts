/**
 * What changes cluster-scoped state, on a private control plane so the shared one is not disturbed:
 * a default IngressClass (every Ingress without a class would wait for an address) and an uninstall
 * that removes the CRDs (every other test uses them), and the full release bundle with the operator
 * running as its ServiceAccount (its cluster-wide objects have fixed names).
 */
import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import {
  ApiextensionsV1Api,
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  FlowcontrolApiserverV1Api,
  type KubeConfig,
  NetworkingV1Api,
  RbacAuthorizationV1Api,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComponentResource } from "../../../src/apis/platform/component.ts";
import type { PlatformResource } from "../../../src/apis/platform/platform.ts";
import { operatorName } from "../../../src/bundle/bundle.ts";
import { binaryPaths } from "../../../src/dev/binaries.ts";
import { privateControlPlane } from "../../../src/dev/cluster.ts";
import { ownVersion } from "../../../src/platform/catalog.ts";
import { defaultClassAnnotation } from "../../../src/platform/ingress-readiness.ts";
import { eventually } from "../../support/cluster.ts";
import { writeServiceAccountKubeconfig } from "../../support/service-account.ts";
import { cliOn, type OperatorProcess, startOperator } from "./support.ts";

const run = promisify(execFile);
const namespace = "plat-private";
const ingressClass = "test-default";
let plane: Awaited<ReturnType<typeof privateControlPlane>> | undefined;
let kubeconfig: string;
let config: KubeConfig;
let operator: OperatorProcess;

beforeAll(async () => {
  plane = await privateControlPlane("slipway-plat-", 1);
  ({ kubeconfig, kubeConfig: config } = plane);
  operator = startOperator(namespace, { kubeconfig });
}, 300_000);

afterAll(async () => {
  await operator?.kill();
  await plane?.stop();
}, 120_000);

const cli = (...args: string[]) => cliOn(kubeconfig, namespace, ...args);

/** A kubeconfig with a token of the bundle's ServiceAccount (the identity of the operator's pod). */
const operatorKubeconfig = () =>
  writeServiceAccountKubeconfig(
    config,
    namespace,
    operatorName,
    join(dirname(kubeconfig), "operator.kubeconfig"),
  );

const component = (name: string) =>
  config
    .makeApiClient(CustomObjectsApi)
    .getNamespacedCustomObject({
      group: "platform.slipway.dev",
      version: "v1beta1",
      namespace,
      plural: "components",
      name: `slipway-${name}`,
    })
    .catch(() => undefined) as Promise<ComponentResource | undefined>;

const platformPhase = async () =>
  (
    (await config.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: "platform.slipway.dev",
      version: "v1beta1",
      namespace,
      plural: "platforms",
      name: "slipway",
    })) as PlatformResource
  ).status?.phase;

const waitingForAddress = (name: string) =>
  eventually(
    `${name} waiting for its Ingress address`,
    () => component(name),
    (c) => c?.status?.message === "Ingress has no address yet",
    120_000,
  );

const giveAddress = (name: string) =>
  run(
    binaryPaths().kubectl,
    [
      "--kubeconfig",
      kubeconfig,
      "-n",
      namespace,
      "patch",
      "ingress",
      `slipway-${name}`,
      "--subresource=status",
      "--type=merge",
      "-p",
      JSON.stringify({ status: { loadBalancer: { ingress: [{ ip: "192.0.2.10" }] } } }),
    ],
    { timeout: 60_000 },
  );

/** A default IngressClass whose controller does not exist (so no Ingress gets an address by itself); returns its removal. */
async function createDefaultIngressClass(): Promise<() => Promise<void>> {
  const networking = config.makeApiClient(NetworkingV1Api);
  await networking.createIngressClass({
    body: {
      metadata: { name: ingressClass, annotations: { [defaultClassAnnotation]: "true" } },
      spec: { controller: "example.org/no-controller" },
    },
  });
  return async () => void (await networking.deleteIngressClass({ name: ingressClass }).catch(() => {}));
}

const slipwayClusterObjects = async () => {
  const rbac = config.makeApiClient(RbacAuthorizationV1Api);
  const flowControl = config.makeApiClient(FlowcontrolApiserverV1Api);
  const names = [
    ...(await rbac.listClusterRole()).items.map((r) => `ClusterRole/${r.metadata?.name}`),
    ...(await rbac.listClusterRoleBinding()).items.map((b) => `ClusterRoleBinding/${b.metadata?.name}`),
    ...(await config.makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition()).items.map(
      (c) => `CustomResourceDefinition/${c.metadata?.name}`,
    ),
    ...(await flowControl.listFlowSchema()).items.map((s) => `FlowSchema/${s.metadata?.name}`),
    ...(await flowControl.listPriorityLevelConfiguration()).items.map(
      (l) => `PriorityLevelConfiguration/${l.metadata?.name}`,
    ),
  ];
  return names.filter((name) => name.includes("slipway"));
};

describe.sequential("a platform on its own control plane", () => {
  it("with a default IngressClass, Components with an Ingress are Ready only once it has an address", {
    timeout: 300_000,
  }, async () => {
    const removeIngressClass = await createDefaultIngressClass();
    try {
      // the full release bundle (operator objects, cluster RBAC), with the test's operator process doing the work
      const install = await cli("install", "--no-wait");
      expect(install.stderr).toBe("");
      expect(install.code).toBe(0);
      // from here as the bundle's ServiceAccount, as its (here simulated) pod would: the builds
      // override's webhook, which that pod would serve, lets only the operator's own writes through
      await operator.kill();
      operator = startOperator(namespace, { kubeconfig: await operatorKubeconfig() });

      const apiServer = await waitingForAddress("api-server");
      expect(apiServer?.status?.phase).toBe("Deploying");
      // web waits for the api-server to be Ready: its Component says so, and it has no Deployment yet
      const waitingWeb = await eventually(
        "web waiting for the api-server",
        () => component("web"),
        (c) => c?.status?.phase === "Pending",
      );
      expect(waitingWeb?.status?.message).toBe("waiting for api-server to be Ready");
      const deployments = await config.makeApiClient(AppsV1Api).listNamespacedDeployment({ namespace });
      expect(deployments.items.map((d) => d.metadata?.name)).not.toContain("slipway-web");
      await giveAddress("api-server");
      await eventually(
        "api-server Ready",
        () => component("api-server"),
        (c) => c?.status?.phase === "Ready",
      );

      const web = await waitingForAddress("web");
      expect(web?.status?.phase).toBe("Deploying");
      expect(await platformPhase()).toBe("Installing");
      await giveAddress("web");
      const status = await cli("status", "--wait", "Running", "--timeout", "2m");
      expect(status.code, status.stderr).toBe(0);
      expect((await component("web"))?.status?.phase).toBe("Ready");
    } finally {
      await removeIngressClass();
    }
  });

  it("uninstall without --keep-crds leaves nothing of Slipway; a second one is a no-op", {
    timeout: 300_000,
  }, async () => {
    const before = await slipwayClusterObjects();
    expect(before).toContain(`ClusterRoleBinding/slipway-operator-${namespace}`);
    expect(before).toContain(`ClusterRoleBinding/slipway-api-server-${namespace}`);
    expect(before).toContain("CustomResourceDefinition/platforms.platform.slipway.dev");
    expect(before).toContain(`FlowSchema/slipway-operator-${namespace}`);
    expect(before).toContain(`PriorityLevelConfiguration/slipway-operator-${namespace}`);

    const first = await cli("uninstall", "--yes", "--timeout", "4m");
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`removed namespace ${namespace}`);
    expect(first.stdout).toMatch(/removed \d+ CRDs/);
    expect(await slipwayClusterObjects()).toEqual([]);
    const namespaces = await config.makeApiClient(CoreV1Api).listNamespace();
    expect(namespaces.items.map((n) => n.metadata?.name)).not.toContain(namespace);

    const second = await cli("uninstall", "--yes");
    expect(second.stderr).toBe("");
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("nothing to uninstall");
  });

  it("installed without --dev, the operator needs only the bundle's RBAC; update rolls the bundle, then the platform", {
    timeout: 300_000,
  }, async () => {
    await operator.kill(); // the one of the tests above
    const bad = await cli("install", "--version", "0.0.9", "--no-wait", "--outbound-deny", "kfp.internal");
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe('error: --outbound-deny: "kfp.internal" is not a CIDR');
    const install = await cli(
      "install",
      "--version",
      "0.0.9",
      "--no-wait",
      "--outbound-allow",
      "10.96.0.0/12,kfp.internal",
      "--outbound-deny",
      "10.244.0.0/16",
      "--ambient-credentials-namespaces",
      "ml",
      "--provider-service-accounts",
      "ml/runner",
    );
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout).toContain("applied the release bundle");
    const policyEnv = async () => {
      const deployment = await config
        .makeApiClient(AppsV1Api)
        .readNamespacedDeployment({ name: operatorName, namespace });
      const env = deployment.spec?.template.spec?.containers[0]?.env ?? [];
      return Object.fromEntries(
        env.filter((e) => e.name.startsWith("SLIPWAY_")).map((e) => [e.name, e.value]),
      );
    };
    const installerPolicy = {
      SLIPWAY_OUTBOUND_ALLOW: "10.96.0.0/12,kfp.internal",
      SLIPWAY_OUTBOUND_DENY: "10.244.0.0/16",
      SLIPWAY_AMBIENT_CREDENTIALS_NAMESPACES: "ml",
      SLIPWAY_PROVIDER_SERVICE_ACCOUNTS: "ml/runner",
    };
    expect(await policyEnv()).toMatchObject(installerPolicy);
    // The pod of the bundle's Deployment is only simulated here (kwok): its process runs beside the
    // cluster instead, with the identity the pod would have (a token of the bundle's ServiceAccount).
    operator = startOperator(namespace, { kubeconfig: await operatorKubeconfig() });
    const running = await cli("status", "--wait", "Running", "--timeout", "3m");
    expect(
      running.code,
      `${running.stderr}\nthe operator's last output:\n${operator.output().slice(-4_000)}`,
    ).toBe(0);

    const update = await cli("update", "--version", ownVersion, "--timeout", "3m");
    expect(update.code, update.stderr).toBe(0);
    expect(update.stdout).toContain(`applied the ${ownVersion} release bundle; waiting for the operator`);
    // the update keeps the installer's policy
    expect(await policyEnv()).toMatchObject(installerPolicy);
    const platform = (await config.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: "platform.slipway.dev",
      version: "v1beta1",
      namespace,
      plural: "platforms",
      name: "slipway",
    })) as PlatformResource;
    expect(platform.status).toMatchObject({ phase: "Running", version: ownVersion });
    expect(operator.output()).not.toMatch(/forbidden|\b403\b/i);
  });

  it("a default IngressClass created later makes the running Components with an Ingress wait for an address", {
    timeout: 300_000,
  }, async () => {
    expect(await platformPhase()).toBe("Running");
    const removeIngressClass = await createDefaultIngressClass();
    try {
      // (the IngressClass's event re-evaluates them at once; here kwok's pod updates would too, later)
      await waitingForAddress("api-server");
      await waitingForAddress("web");
      await giveAddress("api-server");
      await giveAddress("web");
      const status = await cli("status", "--wait", "Running", "--timeout", "2m");
      expect(status.code, status.stderr).toBe(0);
    } finally {
      await removeIngressClass();
    }
  });
});
