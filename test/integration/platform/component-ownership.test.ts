/**
 * Components cannot take over what is not theirs. The platform controllers run as the operator's
 * ServiceAccount `slipway-operator` with only the bundle's RBAC; a user who may only create (and read)
 * Components and read Platforms in the platform's namespace tries to make the operator adopt that
 * ServiceAccount, and to mount the platform's database claim.
 */
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type V1ServiceAccount,
} from "@kubernetes/client-node";
import { beforeAll, describe, expect, it } from "vitest";
import { ProviderKind } from "../../../src/apis/pipelines/provider.ts";
import type { ComponentResource } from "../../../src/apis/platform/component.ts";
import { ComponentKind } from "../../../src/apis/platform/component.ts";
import { PlatformKind, type PlatformResource } from "../../../src/apis/platform/platform.ts";
import { operatorName } from "../../../src/bundle/bundle.ts";
import { platformControllers } from "../../../src/platform/controllers.ts";
import { keepPatch } from "../../../src/platform/kept-data.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { forbiddenRequests, operatorWithBundleRbac } from "../../support/operator-rbac.ts";
import { createPlatform } from "../../support/platform.ts";
import { grantRole, serviceAccountConfig } from "../../support/service-account.ts";

const group = ComponentKind.group;
const version = ComponentKind.version;
const core = () => adminConfig().makeApiClient(CoreV1Api);
const custom = () => adminConfig().makeApiClient(CustomObjectsApi);

// the platform controllers also own the platform's Provider: without its CRD their caches never sync
beforeAll(() => installCrds([PlatformKind, ComponentKind, ProviderKind]));

/** A ServiceAccount `mallory` that may create Components and read Components and Platforms, and nothing else. */
async function mallory(namespace: string): Promise<CustomObjectsApi> {
  await core().createNamespacedServiceAccount({ namespace, body: { metadata: { name: "mallory" } } });
  await grantRole(namespace, "mallory", "component-author", [
    { apiGroups: [group], resources: ["components"], verbs: ["create", "get", "list"] },
    { apiGroups: [group], resources: ["platforms"], verbs: ["get"] },
  ]);
  return (await serviceAccountConfig(adminConfig(), namespace, "mallory")).makeApiClient(CustomObjectsApi);
}

function componentBody(name: string, spec: Partial<ComponentResource["spec"]>, owner?: PlatformResource) {
  return {
    apiVersion: ComponentKind.apiVersion,
    kind: "Component",
    metadata: {
      name,
      ...(owner
        ? {
            ownerReferences: [
              {
                apiVersion: PlatformKind.apiVersion,
                kind: "Platform",
                name: owner.metadata.name ?? "",
                uid: owner.metadata.uid ?? "",
                controller: true,
              },
            ],
          }
        : {}),
    },
    spec: {
      component: "web",
      version: "0.1.0",
      workload: "Deployment",
      image: "example.org/anything:1",
      replicas: 1,
      ...spec,
    },
  };
}

const readComponent = (namespace: string, name: string) =>
  custom().getNamespacedCustomObject({
    group,
    version,
    namespace,
    plural: "components",
    name,
  }) as Promise<ComponentResource>;

const failedWith = (namespace: string, name: string, text: string) =>
  eventually(
    `Component ${name} Failed naming why`,
    () => readComponent(namespace, name),
    (c) => c.status?.phase === "Failed" && (c.status.message ?? "").includes(text),
    30_000,
  );

const workloadNames = async (namespace: string) =>
  [
    ...(await adminConfig().makeApiClient(AppsV1Api).listNamespacedDeployment({ namespace })).items,
    ...(await adminConfig().makeApiClient(AppsV1Api).listNamespacedStatefulSet({ namespace })).items,
  ].map((w) => w.metadata?.name);

describe("Components made by someone other than the Platform controller", () => {
  it("cannot take over the operator's ServiceAccount or mount the platform's database claim", async () => {
    const namespace = await testNamespace("takeover");
    const manager = await operatorWithBundleRbac(namespace, platformControllers());
    const operatorAccount = await core().readNamespacedServiceAccount({ name: operatorName, namespace });
    await createPlatform(namespace);
    const claim = await eventually(
      "the platform's database claim",
      () => core().listNamespacedPersistentVolumeClaim({ namespace }),
      (list) => list.items.some((c) => c.metadata?.name === "slipway-postgres-database"),
      60_000,
    );
    const databaseClaim = claim.items.find((c) => c.metadata?.name === "slipway-postgres-database");
    const platform = (await custom().getNamespacedCustomObject({
      group,
      version,
      namespace,
      plural: "platforms",
      name: "slipway",
    })) as PlatformResource;

    const user = await mallory(namespace);
    const create = (body: object) =>
      user.createNamespacedCustomObject({ group, version, namespace, plural: "components", body });
    await create(componentBody(operatorName, { serviceAccount: true }));
    const volume = {
      name: "postgres-database",
      mountPath: "/data",
      size: "1Gi",
      accessMode: "ReadWriteOnce",
    };
    await create(componentBody("slipway", { volumes: [volume as never] }));
    // the same, claiming to be the Platform's: refused, and the Platform controller deletes it
    await create(componentBody("slipway-db", { volumes: [volume as never] }, platform));

    await failedWith(namespace, operatorName, "not controlled by a Platform");
    await failedWith(namespace, "slipway", "not controlled by a Platform");
    await eventually(
      "the forged Component refused or deleted",
      () => readComponent(namespace, "slipway-db").catch(() => undefined),
      (c) => c === undefined || (c.status?.message ?? "").includes("renders no Component of this name"),
      30_000,
    );

    const account: V1ServiceAccount = await core().readNamespacedServiceAccount({
      name: operatorName,
      namespace,
    });
    expect(account.metadata?.uid).toBe(operatorAccount.metadata?.uid);
    expect(account.metadata?.ownerReferences).toBeUndefined();
    expect(await workloadNames(namespace)).not.toContain("slipway");
    expect(await workloadNames(namespace)).not.toContain(operatorName);
    const claimNow = await core().readNamespacedPersistentVolumeClaim({
      name: "slipway-postgres-database",
      namespace,
    });
    expect(claimNow.metadata?.ownerReferences).toEqual(databaseClaim?.metadata?.ownerReferences);
    expect(claimNow.metadata?.ownerReferences?.map((o) => o.name)).toEqual(["slipway-postgres"]);

    // deleting her Component leaves the operator's ServiceAccount where it was
    await custom().deleteNamespacedCustomObject({
      group,
      version,
      namespace,
      plural: "components",
      name: operatorName,
    });
    await eventually(
      "her Component gone",
      () =>
        readComponent(namespace, operatorName).then(
          () => false,
          () => true,
        ),
      (gone) => gone,
    );
    const after = await core().readNamespacedServiceAccount({ name: operatorName, namespace });
    expect(after.metadata?.uid).toBe(operatorAccount.metadata?.uid);
    expect(await forbiddenRequests(manager)).toBe(0);
  });

  it("a Platform's Component whose child's name is taken by another object goes Failed naming it", async () => {
    const namespace = await testNamespace("taken");
    await operatorWithBundleRbac(namespace, platformControllers());
    // someone made a ServiceAccount of the name the api-server's will have, before the platform
    await core().createNamespacedServiceAccount({
      namespace,
      body: { metadata: { name: "slipway-api-server", labels: { made: "by-hand" } } },
    });
    await createPlatform(namespace);
    await failedWith(
      namespace,
      "slipway-api-server",
      "ServiceAccount slipway-api-server already exists and is not owned by this Component",
    );
    const account = await core().readNamespacedServiceAccount({ name: "slipway-api-server", namespace });
    expect(account.metadata?.ownerReferences).toBeUndefined();
    expect(await workloadNames(namespace)).not.toContain("slipway-api-server");
  });

  it("takes a claim back only when `uninstall --keep-data` marked it kept for this Platform", async () => {
    const namespace = await testNamespace("kept");
    await operatorWithBundleRbac(namespace, platformControllers());
    const claimOwner = (name: string) =>
      core()
        .readNamespacedPersistentVolumeClaim({ name, namespace })
        .then((c) => c.metadata?.ownerReferences?.[0]?.name);
    await createPlatform(namespace);
    await eventually(
      "the object store's claim",
      () => claimOwner("slipway-object-store-artifacts"),
      (o) => o === "slipway-object-store",
    );
    // what uninstall --keep-data does to it (src/cli/platform/uninstall.ts), then the Platform goes
    await core().patchNamespacedPersistentVolumeClaim(
      { name: "slipway-object-store-artifacts", namespace, body: keepPatch("slipway") },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    await custom().deleteNamespacedCustomObject({
      group,
      version,
      namespace,
      plural: "platforms",
      name: "slipway",
    });
    await eventually(
      "the Components gone",
      () => custom().listNamespacedCustomObject({ group, version, namespace, plural: "components" }),
      (list: { items: unknown[] }) => list.items.length === 0,
    );
    // the database claim was not kept: it went with its Component
    await eventually(
      "the database claim gone",
      () => core().listNamespacedPersistentVolumeClaim({ namespace }),
      (list) => !list.items.some((c) => c.metadata?.name === "slipway-postgres-database"),
    );
    // one labelled like Slipway's own claims, but not kept: the label alone does not make it the platform's
    await core().createNamespacedPersistentVolumeClaim({
      namespace,
      body: {
        metadata: { name: "slipway-postgres-database", labels: { "app.kubernetes.io/part-of": "slipway" } },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
      },
    });

    await createPlatform(namespace);
    await failedWith(
      namespace,
      "slipway-postgres",
      "PersistentVolumeClaim slipway-postgres-database already exists and is not owned by this Component",
    );
    await eventually(
      "the kept claim taken back",
      () => claimOwner("slipway-object-store-artifacts"),
      (o) => o === "slipway-object-store",
    );
    expect(await claimOwner("slipway-postgres-database")).toBeUndefined();
  });
});
