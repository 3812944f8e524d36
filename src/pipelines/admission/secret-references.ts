/**
 * Every Secret a Provider names (pure). The operator reads these Secrets and sends their values to
 * the backend the Provider's spec points at, so naming one is reading it: the Provider admission
 * webhook admits a reference only from a user who may `get` that Secret.
 */
import type { Provider } from "../../apis/pipelines/provider.ts";
import { plainObject } from "../../lib/plain-object.ts";

/**
 * Where under `spec.parameters` a Provider names a Secret of its namespace (`{name, key}`): kfp's
 * bearer token, vertex's service account key. Looked at whatever `spec.type` says: a stray
 * reference costs a check, a missed one leaks a Secret.
 */
export const secretParameterPaths = [
  ["auth", "bearerTokenSecret"],
  ["credentials", "keySecret"],
] as const;

export interface ProviderSecretReference {
  /** The field that names the Secret, e.g. `spec.parameters.auth.bearerTokenSecret.name`. */
  field: string;
  secret: string;
}

/** The Secrets `provider` names, in the order of secretParameterPaths; a name that is not a string is none (the backend refuses it). */
export function providerSecretReferences(provider: Pick<Provider, "spec">): ProviderSecretReference[] {
  const parameters = plainObject(provider.spec?.parameters);
  return secretParameterPaths.flatMap(([section, reference]) => {
    const name = plainObject(plainObject(parameters?.[section])?.[reference])?.name;
    return typeof name === "string" && name !== ""
      ? [{ field: `spec.parameters.${section}.${reference}.name`, secret: name }]
      : [];
  });
}

/** CEL for the webhook's matchConditions: true when the object may name a Secret at one of the paths. */
export function secretReferencesExpression(): string {
  const named = secretParameterPaths.map(
    ([section, reference]) =>
      `(has(object.spec.parameters.${section}) && has(object.spec.parameters.${section}.${reference}))`,
  );
  return `has(object.spec.parameters) && (${named.join(" || ")})`;
}

/** The refusal naming the field whose Secret `user` may not get. */
export function providerSecretRefusal(
  refused: ProviderSecretReference,
  user: string,
  namespace: string,
): string {
  return `${refused.field}: user ${user} may not get Secret ${namespace}/${refused.secret}; a Provider may name a Secret only if whoever creates or changes its spec may read it (the operator sends its value to the Provider's endpoint)`;
}
