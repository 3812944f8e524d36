/**
 * Which ServiceAccounts a Provider may name. A Provider's workflows run as `spec.serviceAccount`
 * (and a kfp Provider's operator-minted token is for `parameters.auth.serviceAccountToken.serviceAccount`),
 * so whoever may create a Provider and a Run would otherwise run pods as any ServiceAccount of the
 * Provider's namespace. The namespace's `default` ServiceAccount is always allowed, named or not (a
 * Provider that names none runs as it); any other needs the allowlist, the operator's configuration
 * (the platform administrator's): `SLIPWAY_PROVIDER_SERVICE_ACCOUNTS`, entries `namespace/name` or
 * `*\/name`. Pure.
 */
import type { Provider } from "../apis/pipelines/provider.ts";
import type { ConditionInput } from "../kube/conditions.ts";
import type { Cache, ResourceType } from "../kube/types.ts";

export const serviceAccountsVariable = "SLIPWAY_PROVIDER_SERVICE_ACCOUNTS";

/** Whether `provider` may name ServiceAccount `serviceAccount` (of its own namespace). */
export interface ServiceAccountPolicy {
  (provider: Provider, serviceAccount: string, cache: Pick<Cache, "get">): boolean;
  /** What it reads from `cache` (the Provider controller caches these kinds). */
  reads?: ResourceType[];
}

const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dnsSubdomain = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** Parses the comma-separated allowlist; an entry that is not `namespace/name` or `*\/name` is an error naming it. */
export function parseServiceAccountAllowlist(
  text: string | undefined,
  source: string = serviceAccountsVariable,
): string[] {
  const entries = (text ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [namespace = "", name = "", ...rest] = entry.split("/");
    if (rest.length > 0 || !(namespace === "*" || dnsLabel.test(namespace)) || !dnsSubdomain.test(name)) {
      throw new Error(
        `${source}: ${JSON.stringify(entry)} is not namespace/name or */name (a ServiceAccount a Provider may name)`,
      );
    }
  }
  return entries;
}

/** The policy of an allowlist: `namespace/name` allows that one, `*\/name` that name in every namespace. */
export function allowlistPolicy(entries: readonly string[]): ServiceAccountPolicy {
  const allowed = new Set(entries);
  return (provider, serviceAccount) =>
    allowed.has(`${provider.metadata.namespace}/${serviceAccount}`) || allowed.has(`*/${serviceAccount}`);
}

/**
 * The ServiceAccount every pod of a namespace runs as unless it asks for another, with its token
 * mounted. Whoever may create a Provider runs workflow pods as it by naming no ServiceAccount, so
 * allowing it by name adds nothing; nor does minting its token for kfp
 * (`parameters.auth.serviceAccountToken`, sent to the Provider's endpoint): the workflow pods of
 * such a Provider already hold that token (unless the namespace turned off its automount).
 */
export const namespaceDefaultAccount = "default";

/** Whether `provider` may name `serviceAccount`: its namespace's `default` always, any other as `policy` says. */
function mayName(
  provider: Provider,
  serviceAccount: string,
  policy: ServiceAccountPolicy,
  cache: Pick<Cache, "get">,
): boolean {
  return serviceAccount === namespaceDefaultAccount || policy(provider, serviceAccount, cache);
}

export function eitherPolicy(...policies: ServiceAccountPolicy[]): ServiceAccountPolicy {
  const either: ServiceAccountPolicy = (provider, serviceAccount, cache) =>
    policies.some((policy) => policy(provider, serviceAccount, cache));
  either.reads = policies.flatMap((policy) => policy.reads ?? []);
  return either;
}

/** Every ServiceAccount the Provider names, with the field that names it. */
export function namedServiceAccounts(provider: Provider): { field: string; name: string }[] {
  const named: { field: string; name: string }[] = [];
  if (provider.spec.serviceAccount)
    named.push({ field: "spec.serviceAccount", name: provider.spec.serviceAccount });
  const auth = provider.spec.parameters?.auth as
    | { serviceAccountToken?: { serviceAccount?: unknown } }
    | undefined;
  const tokenAccount = auth?.serviceAccountToken?.serviceAccount;
  if (provider.spec.type === "kfp" && typeof tokenAccount === "string") {
    named.push({ field: "spec.parameters.auth.serviceAccountToken.serviceAccount", name: tokenAccount });
  }
  return named;
}

export const acceptedConditionType = "ProviderAccepted";
export const notAllowedReason = "ServiceAccountNotAllowed";

/** ProviderAccepted: False naming the first field whose ServiceAccount the policy refuses. */
export function acceptedCondition(
  provider: Provider,
  policy: ServiceAccountPolicy,
  cache: Pick<Cache, "get">,
): ConditionInput {
  const refused = namedServiceAccounts(provider).find(({ name }) => !mayName(provider, name, policy, cache));
  if (refused) {
    return {
      type: acceptedConditionType,
      status: "False",
      reason: notAllowedReason,
      message: `${refused.field}: ServiceAccount ${provider.metadata.namespace}/${refused.name} is not on the operator's allowlist of Provider ServiceAccounts (${serviceAccountsVariable})`,
    };
  }
  return {
    type: acceptedConditionType,
    status: "True",
    reason: "Accepted",
    message: "every ServiceAccount the Provider names is allowed",
  };
}

export const allNamespacesConditionType = "AllNamespaces";

/** AllNamespaces: True when `spec.allowedNamespaces` holds `*` (every namespace's resources may use it). */
export function allNamespacesCondition(provider: Provider): ConditionInput {
  const open = (provider.spec.allowedNamespaces ?? []).includes("*");
  return open
    ? {
        type: allNamespacesConditionType,
        status: "True",
        reason: "OpenToAllNamespaces",
        message: `spec.allowedNamespaces: ["*"]: resources of every namespace may use this Provider${provider.spec.serviceAccount ? ` and run as its ServiceAccount ${provider.spec.serviceAccount}` : ""}`,
      }
    : {
        type: allNamespacesConditionType,
        status: "False",
        reason: "ListedNamespaces",
        message: "only its own namespace and those of spec.allowedNamespaces may use this Provider",
      };
}
