/**
 * Per-namespace override of the builds configuration: an optional ConfigMap `slipway-builds` in the
 * ImageBuild's namespace whose `config.yaml` holds a partial configuration, deep-merged over the
 * operator's and validated by the same schema. Only what a namespace may choose for itself can be
 * overridden (where images go, where artifacts come from, naming, build resources, timeouts); what
 * decides where and as whom builds run (backend, Kaniko image and service account, build namespace,
 * concurrency) stays the platform's. Pure functions only.
 */

import { deepMerge } from "../lib/merge.ts";
import { parseYaml } from "../lib/yaml.ts";
import { type BuildsConfig, ConfigError, parseBuildsConfig } from "./config.ts";
import { registryHost } from "./naming.ts";
import { allowedHosts, endpointRefusal, type Refusal } from "./tenancy.ts";

export const overrideConfigMapName = "slipway-builds";
export const overrideKey = "config.yaml";

/** Fields a namespace may override; `kaniko` only its `resources`. */
const overridable = ["registry", "storage", "naming", "kaniko", "defaultTimeout", "defaultBackoffLimit"];
const overridableKaniko = ["resources"];

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Without a grant, a namespace's registry is the platform's host: it may name another path there, or (its own) credentials Secret. */
function registryRefusal(registry: unknown, base: BuildsConfig, namespace: string): Refusal | undefined {
  if (base.tenancy.namespaces[namespace]?.registryOverride) return undefined;
  const grant = `unless tenancy.namespaces.${namespace}.registryOverride allows it`;
  if (base.buildNamespace)
    return {
      field: "registry",
      rule: `cannot be overridden per namespace while builds run in namespace ${base.buildNamespace} (its credentials are the platform's) ${grant}`,
    };
  if (!isObject(registry)) return { field: "registry", rule: "must be an object" };
  const key = Object.keys(registry).find((k) => k !== "url" && k !== "credentialsSecret");
  if (key) return { field: `registry.${key}`, rule: `cannot be overridden per namespace ${grant}` };
  const host = typeof registry.url === "string" ? registryHost(registry.url) : undefined;
  if (host !== undefined && host !== registryHost(base.registry.url))
    return {
      field: "registry.url",
      rule: `host ${host} is not the platform's registry ${registryHost(base.registry.url)} (${grant})`,
    };
  return undefined;
}

/** A namespace's storage endpoints must be hosts the platform allows (it may use its ambient credentials there). */
function storageRefusal(storage: unknown, base: BuildsConfig): Refusal | undefined {
  if (base.buildNamespace)
    return {
      field: "storage",
      rule: `cannot be overridden per namespace while builds run in namespace ${base.buildNamespace} (its credentials are the platform's)`,
    };
  if (!isObject(storage)) return undefined;
  const allowed = allowedHosts(base);
  for (const type of ["s3", "gcs"]) {
    const section = storage[type];
    const endpoint = isObject(section) ? section.endpoint : undefined;
    if (typeof endpoint !== "string") continue;
    const refused = endpointRefusal(`storage.${type}.endpoint`, endpoint, allowed);
    if (refused) return refused;
  }
  return undefined;
}

/** The first field of `override` a namespace may not set, as a dotted path. */
function forbiddenField(override: Json, base: BuildsConfig, namespace: string): Refusal | undefined {
  for (const key of Object.keys(override)) {
    if (!overridable.includes(key))
      return { field: key, rule: `cannot be overridden per namespace (allowed: ${overridable.join(", ")})` };
  }
  const kaniko = override.kaniko;
  if (kaniko !== undefined) {
    if (!isObject(kaniko)) return { field: "kaniko", rule: "must be an object" };
    for (const key of Object.keys(kaniko)) {
      if (!overridableKaniko.includes(key))
        return {
          field: `kaniko.${key}`,
          rule: "cannot be overridden per namespace (allowed: kaniko.resources)",
        };
    }
  }
  // A namespace choosing the registry or the store would have credentials sent wherever it points them.
  if ("registry" in override) {
    const refused = registryRefusal(override.registry, base, namespace);
    if (refused) return refused;
  }
  return "storage" in override ? storageRefusal(override.storage, base) : undefined;
}

/**
 * What the override's owner vouches for: a Platform for its own registry and object store
 * (src/platform/builds-wiring.ts). The operator never learns it from the ConfigMap's content.
 */
export interface VouchedHosts {
  /** host[:port] of the owner's registry. */
  registryHost: string;
  /** host[:port] of the owner's object-store endpoints. */
  storageHosts: string[];
  /** host[:port] of the owner registry's token issuer (its Bearer realm), where the registry credentials may go. */
  tokenRealmHosts?: string[];
}

/** An owner reference that claims to vouch for the override but is not trusted, and why (said in a refusal). */
export interface UntrustedOwner {
  untrusted: string;
}

/** What the override's owner reference makes of it: hosts a trusted owner vouches for, or why it is not trusted. */
export type Vouching = VouchedHosts | UntrustedOwner;

/**
 * The operator's configuration as it applies to an override whose owner vouches for `vouched`: as if
 * it granted the namespace `registryOverride` and listed the registry's token realm hosts (only when
 * the override's registry is on the vouched host) and the vouched storage hosts in `tenancy.allowedHosts`. Anything else the override
 * names is judged by the ordinary rules.
 */
export function vouchedConfig(
  base: BuildsConfig,
  namespace: string,
  override: Json,
  vouched: Vouching | undefined,
): BuildsConfig {
  if (!vouched || "untrusted" in vouched) return base;
  const registry = override.registry;
  const url = isObject(registry) && typeof registry.url === "string" ? registry.url : undefined;
  const onVouchedHost = url !== undefined && registryHost(url) === vouched.registryHost;
  const namespaces = onVouchedHost
    ? {
        ...base.tenancy.namespaces,
        [namespace]: { ...base.tenancy.namespaces[namespace], registryOverride: true },
      }
    : base.tenancy.namespaces;
  const allowedHosts = [
    ...base.tenancy.allowedHosts,
    ...vouched.storageHosts,
    ...(onVouchedHost ? (vouched.tokenRealmHosts ?? []) : []),
  ];
  return { ...base, tenancy: { ...base.tenancy, allowedHosts, namespaces } };
}

/**
 * Where the operator's own (ambient) cloud credentials may serve a namespace's chosen store: the
 * installer's per-namespace setting, the one vertex Providers obey (the operator wires it from its
 * outbound policy).
 */
export interface AmbientCredentials {
  allows: (namespace: string) => boolean;
  /** The setting that would allow it, named in a refusal. */
  setting: string;
}

/** No namespace may have its store served by the operator's ambient credentials. */
export const noAmbientCredentials: AmbientCredentials = {
  allows: () => false,
  setting: "SLIPWAY_AMBIENT_CREDENTIALS_NAMESPACES",
};

/** The store's type when it is the cloud's own (no endpoint) reached without a credentials Secret: with the ambient credentials. */
export function ambientStore(storage: BuildsConfig["storage"]): "s3" | "gcs" | undefined {
  if (!storage) return undefined;
  const section = storage.type === "s3" ? storage.s3 : storage.gcs;
  return section.credentialsSecret || section.endpoint ? undefined : storage.type;
}

/**
 * A namespace that chooses its own store (one the platform's configuration does not already name)
 * gets the operator's ambient credentials only where the installer allows them for it.
 */
function ambientRefusal(
  config: BuildsConfig,
  platform: BuildsConfig,
  namespace: string,
  ambient: AmbientCredentials,
): Refusal | undefined {
  const type = ambientStore(config.storage);
  if (!type || ambient.allows(namespace)) return undefined;
  if (JSON.stringify(config.storage) === JSON.stringify(platform.storage)) return undefined;
  return {
    field: `storage.${type}.credentialsSecret`,
    rule: `none given for the cloud's own store, so the operator would use its ambient cloud credentials, which the installer does not allow for namespace ${namespace} (${ambient.setting})`,
  };
}

/** `config`: the namespace's; `platform`: the operator's as it applies to this namespace (vouchedConfig). */
export type OverrideResult = { config: BuildsConfig; platform: BuildsConfig } | { error: string };

/**
 * The configuration for builds of `namespace`: `base` when there is no override ConfigMap (`data`
 * undefined), else the merged and validated one, or an error naming the ConfigMap and the field.
 * `vouched`: what the ConfigMap's owner vouches for, if a trusted one controls it, or why a claimed
 * owner is not trusted (added to a refusal: the ordinary rule refused, the owner did not lift it).
 * `ambient`: where the operator's ambient cloud credentials may serve a store the namespace chooses.
 */
export function applyOverride(
  base: BuildsConfig,
  namespace: string,
  data: Record<string, string> | undefined,
  vouched?: Vouching,
  ambient: AmbientCredentials = noAmbientCredentials,
): OverrideResult {
  if (data === undefined) return { config: base, platform: base };
  const text = data[overrideKey];
  if (text === undefined)
    return {
      error: `ConfigMap ${overrideConfigMapName} in namespace ${namespace} has no key ${overrideKey}`,
    };
  const where = `ConfigMap ${overrideConfigMapName} in namespace ${namespace}, ${overrideKey}`;
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (error) {
    return { error: `${where}: not valid YAML: ${(error as Error).message.split("\n")[0]}` };
  }
  if (parsed === null || parsed === undefined) return { config: base, platform: base };
  if (!isObject(parsed)) return { error: `${where}: must be a mapping of configuration fields` };
  const platform = vouchedConfig(base, namespace, parsed, vouched);
  const forbidden = forbiddenField(parsed, platform, namespace);
  if (forbidden) {
    const distrust = vouched && "untrusted" in vouched ? ` (not vouched for: ${vouched.untrusted})` : "";
    return { error: `${where}: ${forbidden.field}: ${forbidden.rule}${distrust}` };
  }
  let config: BuildsConfig;
  try {
    config = parseBuildsConfig(deepMerge(platform as unknown as Json, parsed));
  } catch (error) {
    if (error instanceof ConfigError)
      return { error: `${where}: ${error.message.replace(/^builds configuration: /, "")}` };
    throw error;
  }
  const ambientRefused =
    "storage" in parsed ? ambientRefusal(config, platform, namespace, ambient) : undefined;
  if (ambientRefused) return { error: `${where}: ${ambientRefused.field}: ${ambientRefused.rule}` };
  return { config, platform };
}
