/**
 * The operator runs with ONLY the generated RBAC: the bundle's ServiceAccount, Role and RoleBinding
 * are applied in a test namespace, a token is minted for the ServiceAccount (TokenRequest), and the
 * runtime's Manager runs in-process with that token. Removing any one generated rule makes it hit a 403.
 */

import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AdmissionregistrationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  type V1ValidatingWebhookConfiguration,
} from "@kubernetes/client-node";
import pino from "pino";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { allKinds } from "../../../src/apis/index.ts";
import { imageBuildWebhookConfiguration } from "../../../src/builds/admission/configuration.ts";
import { imageBuildAdmissionPath } from "../../../src/builds/admission/review.ts";
import { bundleFor, operatorName } from "../../../src/bundle/bundle.ts";
import { releaseBundle } from "../../../src/bundle/release.ts";
import { packageRoot } from "../../../src/dev/paths.ts";
import { freePorts } from "../../../src/dev/ports.ts";
import { Manager } from "../../../src/kube/manager.ts";
import { ownerReference } from "../../../src/kube/owners.ts";
import { ApiError, RestClient } from "../../../src/kube/rest.ts";
import type { ControllerSpec, KubeObject, ResourceType } from "../../../src/kube/types.ts";
import { deriveRbac, type PolicyRule } from "../../../src/operator/rbac.ts";
import { webhookSecretName } from "../../../src/operator/webhooks.ts";
import { startOperatorWebhooks } from "../../support/admission-webhook.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { gadgetKind, gadgetType } from "../../support/gadget.ts";
import {
  applyRbac,
  bundleOptions,
  forbiddenRequests,
  rbacKinds,
  ruleLabel,
} from "../../support/operator-rbac.ts";
import { serviceAccountConfig, writeServiceAccountKubeconfig } from "../../support/service-account.ts";

const configMapType: ResourceType = {
  group: "",
  version: "v1",
  kind: "ConfigMap",
  plural: "configmaps",
  namespaced: true,
};

interface Gadget extends KubeObject {
  spec: { size: number };
  status?: { observedGeneration?: number; reconciledSize?: number };
}

/** Copies a Gadget's size into an owned ConfigMap and its status, and records an Event. */
const gadgetController: ControllerSpec = {
  name: "gadget-rbac",
  for: gadgetType,
  owns: [configMapType],
  permissions: [
    { type: gadgetType, subresource: "status", verbs: ["patch"] },
    // server-side apply creates the object when it is missing: create as well as patch
    { type: configMapType, verbs: ["create", "patch"] },
  ],
  async reconcile(key, { cache, client, events }) {
    const gadget = cache.get<Gadget>(gadgetType, key);
    if (!gadget) return undefined;
    await client.apply({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: key.name, namespace: key.namespace, ownerReferences: [ownerReference(gadget)] },
      data: { size: String(gadget.spec.size) },
    });
    await client.applyStatus({
      apiVersion: gadgetKind.apiVersion,
      kind: gadgetKind.kind,
      metadata: { name: key.name, namespace: key.namespace },
      status: { observedGeneration: gadget.metadata?.generation, reconciledSize: gadget.spec.size },
    });
    events.event(gadget, "Normal", "Reconciled", `size ${gadget.spec.size}`);
    return undefined;
  },
};

const options = bundleOptions([gadgetController]);

/** The test controller's bundle: only the ServiceAccount and RBAC (cluster-wide: only the admission webhook's). */
async function applyTestRbac(namespace: string, rules?: PolicyRule[]): Promise<void> {
  const bundle = bundleFor(namespace, options);
  expect(bundle.filter((o) => rbacKinds.includes(o.kind ?? "")).map((o) => o.kind)).toEqual([
    "ServiceAccount",
    "Role",
    "RoleBinding",
    "ClusterRole",
    "ClusterRoleBinding",
  ]);
  await applyRbac(bundle, rules);
}

/** Starts the Manager as the ServiceAccount of `namespace`, serving it (or `served`), leader-elected there. */
async function startOperator(namespace: string, served = [namespace]): Promise<Manager> {
  const manager = new Manager({
    kubeConfig: await serviceAccountConfig(adminConfig(), namespace, operatorName),
    namespaces: served,
    fieldManager: "slipway-operator",
    leaderElection: { leaseNamespace: namespace },
    log: pino({ level: process.env.RBAC_TEST_LOG ?? "silent" }),
    shutdownDeadlineMs: 2_000,
  });
  manager.add(gadgetController);
  void manager.start().catch(() => {});
  onTestFinished(() => manager.stop());
  return manager;
}

async function createGadget(namespace: string, size: number): Promise<void> {
  await adminConfig()
    .makeApiClient(CustomObjectsApi)
    .createNamespacedCustomObject({
      group: gadgetKind.group,
      version: gadgetKind.version,
      namespace,
      plural: gadgetKind.plural,
      body: { apiVersion: gadgetKind.apiVersion, kind: "Gadget", metadata: { name: "g" }, spec: { size } },
    });
}

/** Waits until the operator wrote the status of `namespace`'s Gadget for `size`. */
async function reconciled(namespace: string, size: number): Promise<void> {
  const api = adminConfig().makeApiClient(CustomObjectsApi);
  await eventually(
    `the status of the Gadget in ${namespace} written by the operator`,
    () =>
      api.getNamespacedCustomObject({
        group: gadgetKind.group,
        version: gadgetKind.version,
        namespace,
        plural: gadgetKind.plural,
        name: "g",
      }) as Promise<Gadget>,
    (gadget) => gadget.status?.reconciledSize === size,
    30_000,
  );
}

beforeAll(() => installCrds([gadgetKind]));

describe("the operator with only the generated RBAC", () => {
  it("reconciles: reads from its cache, applies a child and status, records an Event, holds the Lease", async () => {
    const namespace = await testNamespace("rbac");
    await applyTestRbac(namespace);
    const manager = await startOperator(namespace);
    await createGadget(namespace, 7);

    await reconciled(namespace, 7);
    const child = await adminConfig()
      .makeApiClient(CoreV1Api)
      .readNamespacedConfigMap({ name: "g", namespace });
    expect(child.data).toEqual({ size: "7" });
    await eventually(
      "the Reconciled Event",
      () => adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace }),
      (events) => events.items.some((e) => e.reason === "Reconciled"),
      15_000,
    );
    expect(manager.leading).toBe(true);
    expect(await forbiddenRequests(manager)).toBe(0);
  });

  const rules = deriveRbac([gadgetController]).namespaced.filter(
    // gadgets/finalizers is only checked by the OwnerReferencesPermissionEnforcement admission
    // plugin (on in OpenShift, off in the local control plane), so removing it cannot 403 here.
    (rule) => !rule.resources.some((r) => r.endsWith("/finalizers")),
  );
  it.each(rules.map((rule) => [ruleLabel(rule), rule] as const))(
    "gets a 403 when the rule on %s is removed",
    async (_, removed) => {
      const namespace = await testNamespace("rbac");
      await applyTestRbac(
        namespace,
        deriveRbac([gadgetController]).namespaced.filter(
          (r) => JSON.stringify(r) !== JSON.stringify(removed),
        ),
      );
      const manager = await startOperator(namespace);
      await createGadget(namespace, 3);
      await eventually(
        "a 403 from the API server",
        () => forbiddenRequests(manager),
        (n) => n > 0,
        30_000,
      );
    },
  );
});

describe("the operator serving a list of namespaces, with the bundle's RBAC for it", () => {
  it("reconciles in each served namespace and holds the Lease in its own, with no request refused", async () => {
    const [own, a, b] = [
      await testNamespace("rbac-own"),
      await testNamespace("rbac-a"),
      await testNamespace("rbac-b"),
    ];
    const bundle = bundleFor(own, { ...options, serves: [a, b] });
    expect(
      bundle.filter((o) => o.kind === "Role").map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`),
    ).toEqual([`${own}/${operatorName}-leader`, `${a}/${operatorName}`, `${b}/${operatorName}`]);
    await applyRbac(bundle);
    const manager = await startOperator(own, [a, b]);
    await createGadget(a, 4);
    await createGadget(b, 5);
    await reconciled(a, 4);
    await reconciled(b, 5);
    expect(manager.leading).toBe(true);
    expect(await forbiddenRequests(manager)).toBe(0);
  });
});

describe("slipway operator with every controller and only the release bundle's RBAC", () => {
  it("syncs every cache, becomes leader and ready, with no request refused", async () => {
    await installCrds(allKinds);
    const namespace = await testNamespace("operator");
    await applyRbac(releaseBundle(namespace));
    const dir = await mkdtemp(join(tmpdir(), "slipway-operator-"));
    const kubeconfig = await writeServiceAccountKubeconfig(
      adminConfig(),
      namespace,
      operatorName,
      join(dir, "kubeconfig"),
    );
    const [port] = await freePorts(1);
    const operator = spawn(
      join(packageRoot, "bin/slipway"),
      [
        "operator",
        `--kubeconfig=${kubeconfig}`,
        `--namespace=${namespace}`,
        "--leader-elect",
        `--metrics-port=${port}`,
        `--health-port=${port}`,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    operator.stdout.on("data", (chunk) => (output += chunk));
    operator.stderr.on("data", (chunk) => (output += chunk));
    onTestFinished(async () => {
      operator.kill("SIGTERM");
      await new Promise((resolve) => operator.once("exit", resolve));
      await rm(dir, { recursive: true, force: true });
    });

    const metrics = await eventually(
      "the operator ready and leading",
      async () => {
        const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
        return ready.ok ? (await fetch(`http://127.0.0.1:${port}/metrics`)).text() : "";
      },
      (text) => /leader_election_master_status\{[^}]*\} 1/.test(text),
      60_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\noperator output:\n${output.slice(-3000)}`);
    });
    expect(metrics).not.toMatch(/rest_client_requests_total\{[^}]*code="403"/);
  });
});

describe("the operator's rights on webhook configurations", () => {
  it("keeps the caBundle of the bundle's own configurations, and may neither read nor patch one of another name", async () => {
    const namespace = await testNamespace("rbac-webhook");
    const { read } = await startOperatorWebhooks(
      namespace,
      [gadgetController],
      [
        {
          name: "slipway-imagebuilds",
          path: imageBuildAdmissionPath,
          configuration: imageBuildWebhookConfiguration,
        },
      ],
    );
    const secret = await adminConfig()
      .makeApiClient(CoreV1Api)
      .readNamespacedSecret({ namespace, name: webhookSecretName });
    expect((await read()).webhooks?.[0]?.clientConfig?.caBundle).toBe(secret.data?.["ca.crt"]);

    const admission = adminConfig().makeApiClient(AdmissionregistrationV1Api);
    const other = `slipway-imagebuilds-${namespace}-other`;
    const body = imageBuildWebhookConfiguration({
      name: other,
      clientConfig: { url: "https://127.0.0.1:1/validate/imagebuilds" },
      namespaces: [namespace],
    }) as V1ValidatingWebhookConfiguration;
    await admission.createValidatingWebhookConfiguration({ body });
    onTestFinished(() => admission.deleteValidatingWebhookConfiguration({ name: other }).then(() => {}));

    const operator = new RestClient(await serviceAccountConfig(adminConfig(), namespace, operatorName));
    onTestFinished(() => operator.close());
    const path = `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${other}`;
    const status = (request: Promise<unknown>) =>
      request.then(
        () => 200,
        (error: unknown) => (error instanceof ApiError ? error.status : 0),
      );
    expect(await status(operator.request("GET", path))).toBe(403);
    expect(
      await status(
        operator.request("PATCH", path, {
          contentType: "application/merge-patch+json",
          body: { webhooks: [{ name: body.webhooks?.[0]?.name, failurePolicy: "Ignore" }] },
        }),
      ),
    ).toBe(403);
    expect(
      await status(
        operator.request("GET", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations"),
      ),
    ).toBe(403);
    expect(
      (await admission.readValidatingWebhookConfiguration({ name: other })).webhooks?.[0]?.failurePolicy,
    ).toBe("Fail");
  });
});
