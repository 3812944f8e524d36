/**
 * RBAC derived from what the controllers declare (src/kube/types.ts ControllerSpec): the kinds they
 * read (readKinds: for/owns/watches/indexes/reads → get/list/watch), what they write (`permissions`), and what the runtime
 * itself needs (Events, the leader-election Lease). Pure: the bundle turns the result into a Role
 * and, only for cluster-scoped kinds, a ClusterRole.
 */
import { defaultLeaseName } from "../kube/leader.ts";
import { readKinds } from "../kube/reads.ts";
import { eventType, leaseType } from "../kube/runtime-types.ts";
import type { ControllerSpec, Permission } from "../kube/types.ts";

export type Verb = Permission["verbs"][number];

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

export interface DerivedRbac {
  /** Rules for each namespace the operator serves (a Role in each, or part of a ClusterRole for all). */
  namespaced: PolicyRule[];
  /** Rules on cluster-scoped kinds only (a ClusterRole); empty when nothing needs one. */
  cluster: PolicyRule[];
}

const READ: Verb[] = ["get", "list", "watch"];

/**
 * Holding the leader Lease (in the operator's own namespace, whichever namespaces it serves): read
 * and renew (PUT) only the operator's own Lease, by name. Its first `create` cannot be named: a
 * create request names no object yet, so RBAC's resourceNames cannot limit it (namedPermissionError);
 * the residual right is creating a Lease of any name there, never reading or changing one.
 */
export const leaderPermissions: Permission[] = [
  { type: leaseType, verbs: ["create"] },
  { type: leaseType, verbs: ["get", "update"], resourceNames: [defaultLeaseName] },
];

/** What the runtime does whatever the controllers are: record Events (with aggregated repeats) and hold the leader Lease. */
export const runtimePermissions: Permission[] = [
  { type: eventType, verbs: ["create", "patch"] },
  ...leaderPermissions,
];

/** Every permission one controller needs, derived from its spec. */
export function controllerPermissions(controller: ControllerSpec): Permission[] {
  const reads = readKinds(controller);
  const owning: Permission[] =
    controller.owns && controller.owns.length > 0
      ? // blockOwnerDeletion on a child's owner reference needs update on the owner's finalizers
        // subresource where the OwnerReferencesPermissionEnforcement admission plugin is on.
        [{ type: controller.for, subresource: "finalizers", verbs: ["update"] }]
      : [];
  return [...reads.map((type) => ({ type, verbs: READ })), ...owning, ...controller.permissions];
}

function resourceName(permission: Permission): string {
  return permission.subresource
    ? `${permission.type.plural}/${permission.subresource}`
    : permission.type.plural;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Verbs RBAC cannot limit by `resourceNames`: a create request names no object yet, and list/watch
 * (deletecollection too) are requests on the collection, limited only when the caller sends a
 * `metadata.name` field selector, which the runtime's caches do not. A create of a subresource
 * (`serviceaccounts/NAME/token`) names its object in the URL, so it can be limited.
 */
const collectionVerbs = new Set<string>(["create", "list", "watch"]);
const unlimitedByName = (permission: Permission, verb: string) =>
  collectionVerbs.has(verb) && !(verb === "create" && permission.subresource);

/** The refusal of a permission RBAC would not limit as written, or undefined when it is sound. */
export function namedPermissionError(permission: Permission): string | undefined {
  const names = permission.resourceNames;
  if (names === undefined) return undefined;
  const what = `permission on ${resourceName(permission)}`;
  // an empty resourceNames is no limit at all: every object of the resource
  if (names.length === 0) return `${what}: resourceNames must name at least one object`;
  const unlimited = permission.verbs.filter((verb) => unlimitedByName(permission, verb));
  if (unlimited.length > 0)
    return `${what}: resourceNames cannot limit ${unlimited.join(", ")} (declare those verbs in a permission without resourceNames)`;
  return undefined;
}

const namesKey = (permission: Permission) => [...(permission.resourceNames ?? [])].sort(compare).join(",");

/**
 * Merges permissions into rules: one verb set per (group, resource, resourceNames), then resources of
 * one group with the same verbs and names share a rule. Everything sorted, so the output is stable.
 */
export function mergeRules(permissions: Permission[]): PolicyRule[] {
  const verbsByResource = new Map<
    string,
    { group: string; resource: string; names: string; verbs: Set<string> }
  >();
  for (const permission of permissions) {
    const error = namedPermissionError(permission);
    if (error) throw new Error(error);
    const resource = resourceName(permission);
    const names = namesKey(permission);
    const key = `${permission.type.group}\u0000${resource}\u0000${names}`;
    const entry = verbsByResource.get(key) ?? {
      group: permission.type.group,
      resource,
      names,
      verbs: new Set<string>(),
    };
    for (const verb of permission.verbs) entry.verbs.add(verb);
    verbsByResource.set(key, entry);
  }
  const rules = new Map<string, PolicyRule>();
  for (const { group, resource, names, verbs } of verbsByResource.values()) {
    const sortedVerbs = [...verbs].sort(compare);
    const key = `${group}\u0000${sortedVerbs.join(",")}\u0000${names}`;
    const rule = rules.get(key) ?? {
      apiGroups: [group],
      resources: [],
      verbs: sortedVerbs,
      ...(names ? { resourceNames: names.split(",") } : {}),
    };
    rule.resources.push(resource);
    rules.set(key, rule);
  }
  return [...rules.values()]
    .map((rule) => ({ ...rule, resources: rule.resources.sort(compare) }))
    .sort(
      (a, b) =>
        compare(a.apiGroups[0] ?? "", b.apiGroups[0] ?? "") ||
        compare(a.resources[0] ?? "", b.resources[0] ?? "") ||
        compare(a.verbs.join(), b.verbs.join()) ||
        compare((a.resourceNames ?? []).join(), (b.resourceNames ?? []).join()),
    );
}

const isTokenRequest = (permission: Permission) =>
  permission.type.group === "" &&
  permission.type.plural === "serviceaccounts" &&
  permission.subresource === "token";

/** The ServiceAccount names of a Provider ServiceAccount allowlist (`namespace/name`, `*\/name`), each once. */
export function allowlistNames(allowlist: readonly string[]): string[] {
  return [...new Set(allowlist.map((entry) => entry.slice(entry.indexOf("/") + 1)))].sort(compare);
}

/**
 * Token requests (`serviceaccounts/token` create) limited to the allowlist's names, or none without
 * names: the controllers mint tokens only for a ServiceAccount a Provider names (kfp's
 * serviceAccountToken), and the allowlist refuses every other. A name is granted in every namespace
 * the operator serves, whichever namespace its entry names (the allowlist still refuses the others).
 */
export function nameTokenRequests(permissions: Permission[], allowlist: readonly string[]): Permission[] {
  const names = allowlistNames(allowlist);
  return permissions.flatMap((permission) => {
    if (!isTokenRequest(permission) || permission.resourceNames) return [permission];
    return names.length > 0 ? [{ ...permission, resourceNames: names }] : [];
  });
}

/**
 * The operator's RBAC: namespace-scoped rules for namespaced kinds, cluster rules only for
 * cluster-scoped kinds; token requests only for the Provider ServiceAccount allowlist's names.
 */
export function deriveRbac(
  controllers: ControllerSpec[],
  runtime: Permission[] = runtimePermissions,
  providerServiceAccounts: readonly string[] = [],
): DerivedRbac {
  const all = nameTokenRequests(
    [...runtime, ...controllers.flatMap(controllerPermissions)],
    providerServiceAccounts,
  );
  return {
    namespaced: mergeRules(all.filter((p) => p.type.namespaced)),
    cluster: mergeRules(all.filter((p) => !p.type.namespaced)),
  };
}
