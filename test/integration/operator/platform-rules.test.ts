/**
 * Every rule the platform's controllers are granted is used: the Manager runs them as the operator's
 * ServiceAccount with the bundle's RBAC less one rule (a namespaced one from its Role, or a cluster
 * one from its ClusterRole), installs a Platform, and the API server refuses something (a 403).
 * The rules are derived from the controllers, so a rule added later (NetworkPolicies, the last) is
 * tested without a change here. The webhook's Secret rules are tested in secret-names.test.ts.
 */
import { CustomObjectsApi } from "@kubernetes/client-node";
import { beforeAll, describe, expect, it } from "vitest";
import { ProviderKind } from "../../../src/apis/pipelines/provider.ts";
import { ComponentKind } from "../../../src/apis/platform/component.ts";
import { PlatformKind } from "../../../src/apis/platform/platform.ts";
import { bundleFor } from "../../../src/bundle/bundle.ts";
import { deriveRbac } from "../../../src/operator/rbac.ts";
import { platformControllers } from "../../../src/platform/controllers.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import {
  applyRbac,
  bundleOptions,
  bundleWithout,
  forbiddenRequests,
  removableRules,
  startOperatorAs,
} from "../../support/operator-rbac.ts";
import { createPlatform } from "../../support/platform.ts";

const rbac = deriveRbac(platformControllers());

const cases = [...removableRules(rbac.namespaced), ...removableRules(rbac.cluster)];

beforeAll(() => installCrds([PlatformKind, ComponentKind, ProviderKind]));

describe("the platform's controllers with the bundle's RBAC less one rule", () => {
  it("(with every rule: no 403 while the Platform's Components are made and its status written)", async () => {
    const namespace = await testNamespace("platform-rule");
    await applyRbac(bundleFor(namespace, bundleOptions(platformControllers())));
    const manager = await startOperatorAs(namespace, platformControllers());
    await createPlatform(namespace);
    await eventually(
      "every Component Ready-or-not with a status, and the Platform's",
      async () => {
        const api = adminConfig().makeApiClient(CustomObjectsApi);
        const list = (plural: string) =>
          api.listNamespacedCustomObject({
            group: PlatformKind.group,
            version: PlatformKind.version,
            namespace,
            plural,
          });
        const [platforms, components] = await Promise.all([
          list(PlatformKind.plural),
          list(ComponentKind.plural),
        ]);
        const items = [...platforms.items, ...components.items] as { status?: { phase?: string } }[];
        return items.length > 1 && items.every((item) => item.status?.phase) ? items.length : 0;
      },
      (n) => n > 1,
      60_000,
    );
    expect(await forbiddenRequests(manager)).toBe(0);
  });

  it.each(cases)("get a 403 installing a Platform without the rule on %s", async (_, removed) => {
    const namespace = await testNamespace("platform-rule");
    await applyRbac(bundleWithout(bundleFor(namespace, bundleOptions(platformControllers())), removed));
    const manager = await startOperatorAs(namespace, platformControllers());
    await createPlatform(namespace);
    await eventually(
      "a 403 from the API server",
      () => forbiddenRequests(manager),
      (n) => n > 0,
      60_000,
    );
  });
});
