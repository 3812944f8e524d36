/**
 * `slipway update --dry-run` on the real API server: a Platform installed at 0.1.0 by the platform
 * controllers (with the bundle's RBAC) previews 0.2.0 — the images each component changes, as the
 * API server would store them — and nothing in the namespace changes; a StatefulSet's immutable
 * fields changed by a rendering are reported as a conflict with what the update does about it
 * (recreate-immutable.test.ts shows the controller doing it).
 */
import type { V1StatefulSet } from "@kubernetes/client-node";
import { beforeAll, describe, expect, it } from "vitest";
import { ProviderKind } from "../../../src/apis/pipelines/provider.ts";
import { ComponentKind, type ComponentResource } from "../../../src/apis/platform/component.ts";
import { PlatformKind, type PlatformResource } from "../../../src/apis/platform/platform.ts";
import { KubeClient } from "../../../src/kube/client.ts";
import { ResourceTypes } from "../../../src/kube/discovery.ts";
import { RestClient } from "../../../src/kube/rest.ts";
import type { KubeObject } from "../../../src/kube/types.ts";
import { findRelease, type Release } from "../../../src/platform/catalog.ts";
import { annotated } from "../../../src/platform/component-children.ts";
import { type InventoryEntry, verdictResolution } from "../../../src/platform/component-inventory.ts";
import { platformControllers } from "../../../src/platform/controllers.ts";
import { operatorFieldManager } from "../../../src/platform/names.ts";
import { types } from "../../../src/platform/resource-types.ts";
import { previewObject, previewUpdate } from "../../../src/platform/update-dry-run.ts";
import { renderUpdate, type UpdatePreview } from "../../../src/platform/update-preview.ts";
import { cli, listComponents, readPlatform } from "../../e2e/platform/support.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { forbiddenRequests, operatorWithBundleRbac } from "../../support/operator-rbac.ts";
import { createPlatform } from "../../support/platform.ts";
import { grantRole } from "../../support/service-account.ts";
import {
  grantPlatformAccess,
  serviceAccountToken,
  startServer,
  updatePreviewerRules,
} from "../server/server.ts";

beforeAll(() => installCrds([PlatformKind, ComponentKind, ProviderKind]));

/** The kinds of everything a Platform owns, directly or through its Components. */
const ownedKinds = [
  "apis/platform.slipway.dev/v1beta1/namespaces/NS/platforms",
  "apis/platform.slipway.dev/v1beta1/namespaces/NS/components",
  "apis/apps/v1/namespaces/NS/deployments",
  "apis/apps/v1/namespaces/NS/statefulsets",
  "api/v1/namespaces/NS/services",
  "api/v1/namespaces/NS/serviceaccounts",
  "api/v1/namespaces/NS/configmaps",
  "api/v1/namespaces/NS/secrets",
  "api/v1/namespaces/NS/persistentvolumeclaims",
  "apis/networking.k8s.io/v1/namespaces/NS/networkpolicies",
  "apis/networking.k8s.io/v1/namespaces/NS/ingresses",
];

/** kind/name → resourceVersion of every object of those kinds in the namespace. */
async function resourceVersions(rest: RestClient, namespace: string): Promise<Record<string, string>> {
  const versions: Record<string, string> = {};
  for (const path of ownedKinds) {
    const list = await rest.request<{ items: KubeObject[] }>("GET", `/${path.replace("NS", namespace)}`);
    for (const item of list.items) {
      versions[`${path.split("/").at(-1)}/${item.metadata?.name}`] = item.metadata?.resourceVersion ?? "";
    }
  }
  return versions;
}

/** An entry for the resolution text (which does not depend on the entry). */
const inventoryEntryOf = (name: string): InventoryEntry => ({
  group: "",
  kind: "",
  namespace: "",
  name,
  uid: "",
});

const release = (version: string): Release => {
  const found = findRelease(version);
  if (!found) throw new Error(`no release ${version}`);
  return found;
};

describe("slipway update --dry-run", () => {
  it("shows what 0.1.0 → 0.2.0 changes per component, refuses what update refuses, and changes nothing", async () => {
    const namespace = await testNamespace("update-dry-run");
    const manager = await operatorWithBundleRbac(namespace, platformControllers());
    await createPlatform(namespace, { version: "0.1.0" });
    await eventually(
      "the platform Running at 0.1.0",
      () => readPlatform(namespace),
      (platform) => platform.status?.phase === "Running" && platform.status.version === "0.1.0",
      180_000,
    );
    expect(await forbiddenRequests(manager)).toBe(0);
    // nothing else writes the platform's objects while the dry run is compared
    await manager.stop();
    // the REST API's dry run acts as its caller: one allowed the writes it previews, one allowed only the Platform
    const url = await startServer(namespace);
    const previewer = await serviceAccountToken(namespace, "previewer");
    const reader = await serviceAccountToken(namespace, "reader");
    await grantRole(namespace, "previewer", "previewer", updatePreviewerRules);
    await grantPlatformAccess(namespace, "reader", ["get", "patch"]);
    const dryRun = (token: string, body: unknown) =>
      fetch(`${url}/api/v1/platform/update/dry-run`, {
        method: "POST",
        body: JSON.stringify(body),
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      });
    const rest = new RestClient(adminConfig());
    const before = await resourceVersions(rest, namespace);

    const json = await cli(namespace, "update", "--version", "0.2.0", "--dry-run", "-o", "json");
    expect(json.code, json.stderr).toBe(0);
    const preview = JSON.parse(json.stdout) as UpdatePreview;
    expect(preview).toMatchObject({ platform: "slipway", namespace, from: "0.1.0", to: "0.2.0" });
    const mlflow = preview.components.find((c) => c.component === "mlflow");
    const deployment = mlflow?.objects.find((o) => o.kind === "Deployment");
    expect(deployment).toMatchObject({ action: "change", name: "slipway-mlflow" });
    expect(deployment?.action === "change" && deployment.changes).toContainEqual({
      path: "spec.template.spec.containers[mlflow].image",
      before: "ghcr.io/mlflow/mlflow:v2.18.0",
      after: "ghcr.io/slipway-dev/mlflow:3.17.2",
    });
    const component = mlflow?.objects.find((o) => o.kind === "Component");
    expect(component?.action === "change" && component.changes).toContainEqual({
      path: "spec.image",
      before: "ghcr.io/mlflow/mlflow:v2.18.0",
      after: "ghcr.io/slipway-dev/mlflow:3.17.2",
    });
    const postgres = preview.components.find((c) => c.component === "postgres");
    const statefulSet = postgres?.objects.find((o) => o.kind === "StatefulSet");
    expect(statefulSet?.action === "change" && statefulSet.changes).toContainEqual({
      path: "spec.template.spec.containers[postgres].image",
      before: "docker.io/library/postgres:16.6",
      after: "docker.io/library/postgres:15.20",
    });
    // a version change leaves the Services and claims as they are: not listed, counted
    expect(postgres?.objects.map((o) => o.kind)).not.toContain("PersistentVolumeClaim");
    expect(postgres?.unchanged).toBeGreaterThan(0);
    // only the images change: the Components and their workloads, nothing else, nothing created or pruned
    const touched = preview.components.flatMap((c) => c.objects);
    expect(touched.filter((o) => o.action !== "change")).toEqual([]);
    expect([...new Set(touched.map((o) => o.kind))].sort()).toEqual([
      "Component",
      "Deployment",
      "StatefulSet",
    ]);

    const text = await cli(namespace, "update", "--version", "0.2.0", "--dry-run");
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`~ Deployment ${namespace}/slipway-mlflow`);
    expect(text.stdout).toContain(
      "- spec.template.spec.containers[mlflow].image: ghcr.io/mlflow/mlflow:v2.18.0",
    );
    expect(text.stdout).toContain(
      "+ spec.template.spec.containers[mlflow].image: ghcr.io/slipway-dev/mlflow:3.17.2",
    );

    const downgrade = await cli(namespace, "update", "--version", "0.0.9", "--dry-run");
    expect(downgrade.code).not.toBe(0);
    expect(downgrade.stderr).toContain(
      "--version 0.0.9 is older than the running 0.1.0: a downgrade needs --force",
    );
    const unknown = await cli(namespace, "update", "--version", "9.9.9", "--dry-run");
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain("--version 9.9.9 is not a known Slipway release");

    const answer = await dryRun(previewer, { version: "0.2.0" });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual(preview);
    const unknownRest = await dryRun(previewer, { version: "9.9.9" });
    expect(unknownRest.status).toBe(400);
    expect(await unknownRest.json()).toMatchObject({
      field: "body.version",
      message: /unknown version 9\.9\.9/,
    });
    const downgradeRest = await dryRun(previewer, { version: "0.0.9" });
    expect(downgradeRest.status).toBe(409);
    expect(await downgradeRest.json()).toMatchObject({ message: /downgrade from 0\.1\.0/ });
    const bad = await dryRun(previewer, { version: "0.2.0", dryRun: true });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ field: "body.dryRun" });
    const refused = await dryRun(reader, { version: "0.2.0" });
    expect(refused.status).toBe(403);

    expect(await resourceVersions(rest, namespace)).toEqual(before);
    expect((await readPlatform(namespace)).spec.version).toBe("0.1.0");
  }, 300_000);

  it("reports a changed StatefulSet selector or volume claim template as a conflict the controller resolves by recreating it", async () => {
    const namespace = await testNamespace("update-dry-run-conflict");
    await operatorWithBundleRbac(namespace, platformControllers());
    await createPlatform(namespace, { version: "0.2.0" });
    const live = await eventually(
      "postgres's StatefulSet",
      async () => (await listComponents(namespace)).find((c) => c.metadata.name === "slipway-postgres"),
      (component) => component?.metadata.uid !== undefined,
    );
    const rest = new RestClient(adminConfig());
    await eventually(
      "the StatefulSet slipway-postgres",
      () =>
        rest
          .request<V1StatefulSet>(
            "GET",
            `/apis/apps/v1/namespaces/${namespace}/statefulsets/slipway-postgres`,
          )
          .catch(() => undefined),
      (found) => found !== undefined,
    );
    const platform = await readPlatform(namespace);
    const rendered = renderUpdate(
      platform as PlatformResource,
      platform.spec,
      release("0.2.0"),
      [live as ComponentResource],
      types.component,
    ).find((c) => c.component === "postgres");
    const item = rendered?.objects.find(({ object }) => object.kind === "StatefulSet");
    if (!item) throw new Error("no StatefulSet rendered for postgres");
    const client = new KubeClient(rest, new ResourceTypes(rest), { fieldManager: operatorFieldManager });
    const spec = (item.object as V1StatefulSet).spec;
    if (!spec) throw new Error("a StatefulSet without spec");

    const unchanged = await previewObject(client, item, live as ComponentResource, "slipway", [
      "slipway-postgres-data",
    ]);
    expect(unchanged).toBeUndefined();

    const withTemplate: V1StatefulSet = {
      ...(item.object as V1StatefulSet),
      spec: {
        ...spec,
        volumeClaimTemplates: [
          {
            metadata: { name: "pgdata" },
            spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
          },
        ],
      },
    };
    // a changed rendering carries its own applied hash, as the controller renders it
    const template = await previewObject(
      client,
      { ...item, object: annotated(withTemplate) },
      live as ComponentResource,
      "slipway",
      ["slipway-postgres-data"],
    );
    expect(template).toMatchObject({
      action: "conflict",
      kind: "StatefulSet",
      name: "slipway-postgres",
      fields: ["spec.volumeClaimTemplates"],
      resolved: true,
    });
    expect(template?.action === "conflict" && template.resolution).toBe(
      `recreate StatefulSet ${namespace}/slipway-postgres (spec.volumeClaimTemplates is immutable): deleted with propagationPolicy Orphan, so its pods keep running until the new StatefulSet adopts them; its PersistentVolumeClaim slipway-postgres-data and their data are kept`,
    );
    // the same applied hash as the live one: created from this very rendering and refused again
    const again = await previewObject(
      client,
      { ...item, object: withTemplate },
      live as ComponentResource,
      "slipway",
      ["slipway-postgres-data"],
    );
    expect(again).toMatchObject({
      action: "conflict",
      fields: ["spec.volumeClaimTemplates"],
      resolved: false,
    });
    expect(again?.action === "conflict" && again.resolution).toMatch(
      /^will fail: the API server refuses the change to spec.volumeClaimTemplates and it is not recreated \(the StatefulSet was already created from this rendering/,
    );

    const labels = { ...spec.selector.matchLabels, tier: "db" };
    const withSelector: V1StatefulSet = {
      ...(item.object as V1StatefulSet),
      spec: {
        ...spec,
        selector: { matchLabels: labels },
        template: { ...spec.template, metadata: { ...spec.template.metadata, labels } },
      },
    };
    const selector = await previewObject(
      client,
      { ...item, object: annotated(withSelector) },
      live as ComponentResource,
      "slipway",
      [],
    );
    expect(selector).toMatchObject({ action: "conflict", fields: ["spec.selector"], resolved: true });
    // the new StatefulSet would not adopt the old pods: they go with the old one
    expect(selector?.action === "conflict" && selector.resolution).toMatch(
      /^recreate StatefulSet .*\/slipway-postgres \(spec\.selector is immutable\): deleted with propagationPolicy Background/,
    );
  }, 180_000);
  it("lists what a rendering no longer has: a dropped component with everything it owns, an Ingress no longer rendered", async () => {
    const namespace = await testNamespace("update-dry-run-prune");
    await operatorWithBundleRbac(namespace, platformControllers());
    await createPlatform(namespace, { version: "0.2.0" });
    const rest = new RestClient(adminConfig());
    await eventually(
      "the Ingresses of the api-server and web",
      async () =>
        (
          await rest.request<{ items: KubeObject[] }>(
            "GET",
            `/apis/networking.k8s.io/v1/namespaces/${namespace}/ingresses`,
          )
        ).items
          .map((ingress) => ingress.metadata?.name)
          .sort(),
      (names) => names.includes("slipway-web") && names.includes("slipway-api-server"),
    );
    // what is pruned is what the Component's inventory lists: its Deployment once it is created
    await eventually(
      "web's Deployment in its inventory",
      async () => (await listComponents(namespace)).find((c) => c.metadata.name === "slipway-web"),
      (web) => web?.status?.inventory?.some((entry) => entry.kind === "Deployment") === true,
      120_000,
    );
    const platform = await readPlatform(namespace);
    const client = new KubeClient(rest, new ResourceTypes(rest), { fieldManager: operatorFieldManager });
    const preview = await previewUpdate(client, platform, {
      spec: { ...platform.spec, components: { web: { enabled: false } }, ingress: { enabled: false } },
      release: release("0.2.0"),
    });
    const web = preview.components.find((c) => c.component === "web");
    expect(web?.objects.every((o) => o.action === "prune")).toBe(true);
    expect(web?.objects.map((o) => o.kind)).toEqual(
      expect.arrayContaining(["Component", "Deployment", "Service", "NetworkPolicy", "Ingress"]),
    );
    expect(web?.objects.find((o) => o.kind === "Component")).toMatchObject({
      name: "slipway-web",
      resolution: expect.stringContaining("deleted by the Platform controller"),
    });
    expect(web?.objects.find((o) => o.kind === "Deployment")).toMatchObject({
      resolution: verdictResolution({ action: "prune", entry: inventoryEntryOf("slipway-web") }, true),
    });
    const apiServer = preview.components.find((c) => c.component === "api-server");
    expect(apiServer?.objects.find((o) => o.kind === "Ingress")).toEqual({
      kind: "Ingress",
      name: "slipway-api-server",
      action: "prune",
      resolution: verdictResolution(
        { action: "prune", entry: inventoryEntryOf("slipway-api-server") },
        false,
      ),
    });
  }, 180_000);
});
