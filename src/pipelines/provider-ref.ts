import type { Provider } from "../apis/pipelines/provider.ts";
import type { ObjectKey } from "../kube/types.ts";
import type { BackendRegistry } from "./backend.ts";
import type { ProviderBlocker } from "./blockers.ts";
import { acceptedConditionType } from "./provider-service-accounts.ts";

/** The Provider's condition of `type` when it is about its current generation (e.g. the backend answered with this spec). */
function currentCondition(provider: Provider, type: string) {
  const condition = provider.status?.conditions?.find((c) => c.type === type);
  const current = condition && condition.observedGeneration === provider.metadata.generation;
  return current ? condition : undefined;
}

/** The object a `name` or `namespace/name` reference names, from a resource in `namespace`. */
export function namespacedKey(reference: string, namespace: string): Required<ObjectKey> {
  const slash = reference.indexOf("/");
  return slash < 0
    ? { namespace, name: reference }
    : { namespace: reference.slice(0, slash), name: reference.slice(slash + 1) };
}

/** The Provider a `name` or `namespace/name` reference names, from a resource in `namespace`. */
export const providerKey = namespacedKey;

/** Whether resources in `namespace` may use `provider` (and see its runs): its own namespace or its allowedNamespaces. */
export function providerAllows(provider: Provider, namespace: string): boolean {
  const allowed = provider.spec.allowedNamespaces ?? [];
  return provider.metadata.namespace === namespace || allowed.includes(namespace) || allowed.includes("*");
}

/** How a Provider's allowedNamespaces reads in a message. */
export const allowedText = (provider: Provider) =>
  `its spec.allowedNamespaces: ${provider.spec.allowedNamespaces?.length ? provider.spec.allowedNamespaces.join(", ") : "none"}`;

export function keyText(key: Required<ObjectKey>): string {
  return `${key.namespace}/${key.name}`;
}

/** Why a resource in `namespace` cannot use `provider` (undefined when it can); `backends` are the types this operator runs. */
export function providerProblem(
  reference: string,
  namespace: string,
  provider: Provider | undefined,
  backends: BackendRegistry,
): ProviderBlocker | undefined {
  const key = keyText(providerKey(reference, namespace));
  if (!provider)
    return { reason: "ProviderNotFound", message: `spec.provider: Provider ${key} does not exist` };
  if (!providerAllows(provider, namespace)) {
    return {
      reason: "ProviderNotAllowed",
      message: `spec.provider: Provider ${key} does not allow namespace ${namespace} (${allowedText(provider)})`,
    };
  }
  if (!Object.hasOwn(backends, provider.spec.type)) {
    return {
      reason: "BackendUnavailable",
      message: `spec.provider: Provider ${key} has type ${provider.spec.type}, which this operator does not run yet`,
    };
  }
  const accepted = currentCondition(provider, acceptedConditionType);
  if (accepted?.status === "False") {
    return {
      reason: "ServiceAccountNotAllowed",
      message: `spec.provider: Provider ${key} is not accepted: ${accepted.message}`,
    };
  }
  const ready = currentCondition(provider, "Ready");
  if (ready?.status !== "True") {
    return {
      reason: "ProviderNotReady",
      message: `spec.provider: Provider ${key} is not Ready: ${ready?.message ?? "its backend has not answered yet"}`,
    };
  }
  return undefined;
}
