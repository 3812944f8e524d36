/**
 * The component controller caches only the ConfigMaps of Components (a label-selected informer), not
 * every ConfigMap of the namespaces it serves; a ConfigMap named like a Component's but without that
 * label, so never cached, still makes the Component fail naming it, and is left as it was.
 */
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { beforeAll, describe, expect, it } from "vitest";
import { ProviderKind } from "../../../src/apis/pipelines/provider.ts";
import { ComponentKind, type ComponentResource } from "../../../src/apis/platform/component.ts";
import { PlatformKind } from "../../../src/apis/platform/platform.ts";
import type { ResourceType } from "../../../src/kube/types.ts";
import { componentController } from "../../../src/platform/component-controller.ts";
import { platformControllers } from "../../../src/platform/controllers.ts";
import { workflowControllerConfigMapName } from "../../../src/platform/workflow-engine.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { forbiddenRequests, operatorWithBundleRbac } from "../../support/operator-rbac.ts";
import { createPlatform } from "../../support/platform.ts";

/** The ConfigMap type the component controller owns (and so caches). */
const ownedConfigMaps = componentController().owns?.find((type) => type.kind === "ConfigMap") as ResourceType;
const engineConfigMap = workflowControllerConfigMapName("slipway");

const createConfigMap = (namespace: string, name: string) =>
  adminConfig()
    .makeApiClient(CoreV1Api)
    .createNamespacedConfigMap({ namespace, body: { metadata: { name }, data: { mine: "yes" } } });

beforeAll(() => installCrds([PlatformKind, ComponentKind, ProviderKind]));

describe("the component controller's ConfigMaps", () => {
  it("caches the Components' ConfigMap and not an unlabelled one of the namespace", async () => {
    const namespace = await testNamespace("component-cm");
    await createConfigMap(namespace, "unrelated");
    const manager = await operatorWithBundleRbac(namespace, platformControllers());
    await createPlatform(namespace);
    const names = await eventually(
      "the workflow engine's ConfigMap cached",
      async () =>
        manager.cache
          .list(ownedConfigMaps, { namespace })
          .map((o) => o.metadata?.name ?? "")
          .sort(),
      (list) => list.includes(engineConfigMap),
    );
    expect(names).toEqual([engineConfigMap]);
    expect(await forbiddenRequests(manager)).toBe(0);
  });

  it("fails the Component naming an unlabelled ConfigMap of its ConfigMap's name, and leaves it as it was", async () => {
    const namespace = await testNamespace("component-cm");
    await createConfigMap(namespace, engineConfigMap);
    await operatorWithBundleRbac(namespace, platformControllers());
    await createPlatform(namespace);
    const component = await eventually(
      "the workflow engine's Component Failed",
      async () =>
        (await adminConfig().makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
          group: ComponentKind.group,
          version: ComponentKind.version,
          namespace,
          plural: ComponentKind.plural,
          name: "slipway-workflow-engine",
        })) as ComponentResource,
      (c) => c.status?.phase === "Failed",
      90_000,
    );
    expect(component.status?.message).toContain(`ConfigMap ${engineConfigMap}`);
    const left = await adminConfig()
      .makeApiClient(CoreV1Api)
      .readNamespacedConfigMap({ namespace, name: engineConfigMap });
    expect(left.data).toEqual({ mine: "yes" });
    expect(left.metadata?.ownerReferences).toBeUndefined();
  });
});
