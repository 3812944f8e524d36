/**
 * The rule of the builds override admission webhook (pure): the override ConfigMap (override.ts)
 * may name a Secret — the registry's push credentials, the blob store's — only if the user who
 * creates or changes it may `get` that Secret itself, since the operator mounts it into the
 * namespace's build pods (Kaniko's RUN steps can read it) and sends it to the registry and the
 * store. The references are read from `config.yaml` with the parser the operator uses, so the
 * webhook sees the Secrets the operator would.
 */
import type { V1ConfigMap } from "@kubernetes/client-node";
import { plainObject } from "../../lib/plain-object.ts";
import { parseYaml } from "../../lib/yaml.ts";
import { overrideConfigMapName, overrideKey } from "../override.ts";

/** Where under `config.yaml` the override names a Secret of its namespace. */
export const overrideSecretPaths = [
  ["registry", "credentialsSecret"],
  ["registry", "scopedCredentials", "secret"],
  ["storage", "s3", "credentialsSecret"],
  ["storage", "gcs", "credentialsSecret"],
] as const;

export interface OverrideSecretReference {
  /** The field, e.g. `registry.credentialsSecret`. */
  field: string;
  secret: string;
}

/**
 * The Secrets the override names, in the order of overrideSecretPaths. Text that is not a YAML
 * mapping names none: the operator refuses such an override whole (InvalidOverride), so it mounts
 * nothing from it.
 */
export function overrideSecretReferences(configMap: Pick<V1ConfigMap, "data">): OverrideSecretReference[] {
  const text = configMap.data?.[overrideKey];
  if (text === undefined) return [];
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch {
    return [];
  }
  return overrideSecretPaths.flatMap((path) => {
    let value: unknown = parsed;
    for (const key of path) value = plainObject(value)?.[key];
    return typeof value === "string" && value !== "" ? [{ field: path.join("."), secret: value }] : [];
  });
}

/** The refusal naming the field whose Secret `user` may not get. */
export function overrideSecretRefusal(
  refused: OverrideSecretReference,
  user: string,
  namespace: string,
): string {
  return `ConfigMap ${overrideConfigMapName}, ${overrideKey}: ${refused.field}: user ${user} may not get Secret ${namespace}/${refused.secret}; the builds override may name a Secret only if whoever creates or changes the ConfigMap may read it (the operator mounts it into the namespace's build pods)`;
}
