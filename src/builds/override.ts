/**
 * Per-namespace override of the builds configuration: an optional ConfigMap `slipway-builds` in the
 * ImageBuild's namespace whose `config.yaml` holds a partial configuration, deep-merged over the
 * operator's and validated by the same schema. Only what a namespace may choose for itself can be
 * overridden (where images go, where artifacts come from, naming, build resources, timeouts); what
 * decides where and as whom builds run (backend, Kaniko image and service account, build namespace,
 * concurrency) stays the platform's. Pure functions only.
 */
import { parse as parseYaml } from "yaml";
import { deepMerge } from "../kube/merge.ts";
import { type BuildsConfig, ConfigError, parseBuildsConfig } from "./config.ts";

export const overrideConfigMapName = "slipway-builds";
export const overrideKey = "config.yaml";

/** Fields a namespace may override; `kaniko` only its `resources`. */
const overridable = ["registry", "storage", "naming", "kaniko", "defaultTimeout", "defaultBackoffLimit"];
const overridableKaniko = ["resources"];

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The first field of `override` a namespace may not set, as a dotted path. */
function forbiddenField(override: Json, base: BuildsConfig): { field: string; rule: string } | undefined {
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
  // In a shared build namespace the credentials Secrets are the platform's: a namespace choosing the
  // registry or the store would send the platform's credentials wherever it points them.
  if (base.buildNamespace) {
    const field = ["registry", "storage"].find((key) => key in override);
    if (field)
      return {
        field,
        rule: `cannot be overridden per namespace while builds run in namespace ${base.buildNamespace} (its credentials are the platform's)`,
      };
  }
  return undefined;
}

export type OverrideResult = { config: BuildsConfig } | { error: string };

/**
 * The configuration for builds of `namespace`: `base` when there is no override ConfigMap (`data`
 * undefined), else the merged and validated one, or an error naming the ConfigMap and the field.
 */
export function applyOverride(
  base: BuildsConfig,
  namespace: string,
  data: Record<string, string> | undefined,
): OverrideResult {
  if (data === undefined) return { config: base };
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
  if (parsed === null || parsed === undefined) return { config: base };
  if (!isObject(parsed)) return { error: `${where}: must be a mapping of configuration fields` };
  const forbidden = forbiddenField(parsed, base);
  if (forbidden) return { error: `${where}: ${forbidden.field}: ${forbidden.rule}` };
  try {
    return { config: parseBuildsConfig(deepMerge(base as unknown as Json, parsed)) };
  } catch (error) {
    if (error instanceof ConfigError)
      return { error: `${where}: ${error.message.replace(/^builds configuration: /, "")}` };
    throw error;
  }
}
