/** The operator's ServiceAccount and generated RBAC applied to the test control plane, and a Manager running as it. */
import {
  type KubernetesObject,
  KubernetesObjectApi,
  PatchStrategy,
  RbacAuthorizationV1Api,
} from "@kubernetes/client-node";
import pino from "pino";
import { onTestFinished } from "vitest";
import { toClientModel } from "../../src/apis/wire.ts";
import { type BundleObject, bundleFor, defaultResources, operatorName } from "../../src/bundle/bundle.ts";
import { Manager, type ManagerOptions } from "../../src/kube/manager.ts";
import type { ControllerSpec } from "../../src/kube/types.ts";
import type { PolicyRule } from "../../src/operator/rbac.ts";
import { adminConfig } from "./cluster.ts";
import { serviceAccountConfig } from "./service-account.ts";

export const rbacKinds = ["ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"];

/** Bundle options for the given controllers (no CRDs: the tests install those). */
export const bundleOptions = (controllers: ControllerSpec[]) => ({
  kinds: [],
  controllers,
  image: "example.org/slipway:test",
  imagePullPolicy: "IfNotPresent" as const,
  replicas: 1,
  logLevel: "info" as const,
  resources: defaultResources,
  version: "test",
});

/**
 * Applies the ServiceAccount and RBAC of `bundle` (with `rules` in the Role if given), as admin; the
 * cluster-scoped ones are deleted after the test.
 */
export async function applyRbac(bundle: BundleObject[], rules?: PolicyRule[]): Promise<void> {
  const api = KubernetesObjectApi.makeApiClient(adminConfig());
  for (const object of bundle.filter((o) => rbacKinds.includes(o.kind ?? ""))) {
    const applied: BundleObject = object.kind === "Role" && rules ? { ...object, rules } : object;
    await api.patch(
      toClientModel<KubernetesObject>(applied),
      undefined,
      undefined,
      "rbac-test",
      true,
      PatchStrategy.ServerSideApply,
    );
  }
  onTestFinished(async () => {
    const rbac = adminConfig().makeApiClient(RbacAuthorizationV1Api);
    for (const object of bundle.filter((o) => o.kind === "ClusterRole" || o.kind === "ClusterRoleBinding")) {
      const name = object.metadata?.name ?? "";
      await (object.kind === "ClusterRole"
        ? rbac.deleteClusterRole({ name })
        : rbac.deleteClusterRoleBinding({ name })
      ).catch(() => {});
    }
  });
}

/**
 * `controllers` in a Manager running in-process as the operator's ServiceAccount of `namespace`,
 * with only the RBAC the bundle generates for them; stopped after the test.
 */
export async function operatorWithBundleRbac(
  namespace: string,
  controllers: ControllerSpec[],
): Promise<Manager> {
  await applyRbac(bundleFor(namespace, bundleOptions(controllers)));
  return startManagerAs(namespace, controllers, { namespace });
}

/** A rule as a test's name: group, resources and, when it has them, the names it is limited to. */
export const ruleLabel = (rule: PolicyRule) =>
  `${rule.apiGroups[0] || "core"} ${rule.resources.join(",")}${rule.resourceNames ? ` named ${rule.resourceNames.join(",")}` : ""}`;

const sameGroupAndNames = (a: PolicyRule, b: PolicyRule) =>
  JSON.stringify([a.apiGroups, a.resourceNames]) === JSON.stringify([b.apiGroups, b.resourceNames]);

/**
 * `bundle` without the verbs of `removed` on its resources: the bundle merges the rules of several
 * controllers on the same resources (the webhook's Secret `create` with the pipelines' `get`), so a
 * rule is taken out verb by verb; one left with no verb goes. Throws when nothing was removed — a
 * per-rule test would otherwise pass or fail for the wrong reason.
 */
export function bundleWithout(bundle: BundleObject[], removed: PolicyRule): BundleObject[] {
  let found = false;
  // the bundle may group resources otherwise than the rule (configmaps with the platform's, not with
  // secrets): the rule's resources are taken out of each bundle rule on the same group and names
  const without = (rule: PolicyRule): PolicyRule[] => {
    const shared = rule.resources.filter((resource) => removed.resources.includes(resource));
    if (!sameGroupAndNames(rule, removed) || shared.length === 0) return [rule];
    const verbs = rule.verbs.filter((verb) => !removed.verbs.includes(verb));
    found ||= verbs.length < rule.verbs.length;
    const others = rule.resources.filter((resource) => !shared.includes(resource));
    return [
      ...(others.length ? [{ ...rule, resources: others }] : []),
      ...(verbs.length ? [{ ...rule, resources: shared, verbs }] : []),
    ];
  };
  const result = bundle.map((object) =>
    object.kind === "Role" || object.kind === "ClusterRole"
      ? { ...object, rules: (object.rules as PolicyRule[]).flatMap(without) }
      : object,
  );
  if (!found)
    throw new Error(`the bundle grants no verb of the rule ${ruleLabel(removed)}: nothing to remove`);
  return result;
}

/**
 * The rules a per-rule test removes, each with its label: all but `*\/finalizers`, which only the
 * OwnerReferencesPermissionEnforcement admission plugin checks (off in the local control plane), so
 * removing one cannot 403 here.
 */
export const removableRules = (rules: PolicyRule[]) =>
  rules
    .filter((rule) => !rule.resources.some((r) => r.endsWith("/finalizers")))
    .map((rule) => [ruleLabel(rule), rule] as const);

/** `controllers` in a leader-elected Manager as the operator's ServiceAccount of `namespace`, serving it; stopped after the test. */
export function startOperatorAs(namespace: string, controllers: ControllerSpec[]): Promise<Manager> {
  return startManagerAs(namespace, controllers, {
    namespaces: [namespace],
    leaderElection: { leaseNamespace: namespace },
  });
}

/** `controllers` in a Manager as the operator's ServiceAccount of `namespace`, with `options`; stopped after the test. */
async function startManagerAs(
  namespace: string,
  controllers: ControllerSpec[],
  options: Pick<ManagerOptions, "namespace" | "namespaces" | "leaderElection">,
): Promise<Manager> {
  const manager = new Manager({
    kubeConfig: await serviceAccountConfig(adminConfig(), namespace, operatorName),
    ...options,
    fieldManager: "slipway-operator",
    log: pino({ level: process.env.RBAC_TEST_LOG ?? "silent" }),
    shutdownDeadlineMs: 2_000,
  });
  for (const controller of controllers) manager.add(controller);
  void manager.start().catch(() => {});
  onTestFinished(() => manager.stop());
  return manager;
}

/** How many of the Manager's API requests were refused (403). */
export async function forbiddenRequests(manager: Manager): Promise<number> {
  const values = (await manager.metrics.restRequests.get()).values;
  return values.filter((v) => String(v.labels.code) === "403").reduce((sum, v) => sum + v.value, 0);
}
