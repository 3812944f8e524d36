/**
 * Which RunConfigurations a RunConfiguration's `triggers.runConfigurations` may see (pure). An entry is
 * `name` (its own namespace) or `namespace/name`. One in its own namespace is always seen; one in
 * another namespace only when the Provider that runs it allows this namespace (its
 * `allowedNamespaces`, the same rule as for using that Provider). A refused source triggers nothing,
 * and the TriggersAllowed condition says why.
 */
import type { Provider } from "../apis/pipelines/provider.ts";
import type { RunConfiguration } from "../apis/pipelines/run-configuration.ts";
import type { ConditionInput } from "../kube/conditions.ts";
import type { ObjectKey } from "../kube/types.ts";
import { allowedText, keyText, namespacedKey, providerAllows, providerKey } from "./provider-ref.ts";

export const triggersConditionType = "TriggersAllowed";

export interface TriggerLookup {
  configuration(key: Required<ObjectKey>): RunConfiguration | undefined;
  provider(key: Required<ObjectKey>): Provider | undefined;
}

export interface TriggerSources {
  /** Entry → the latest succeeded run id of each source this RunConfiguration may see. */
  sourceRuns: Record<string, string | undefined>;
  /** TriggersAllowed; undefined when it names no RunConfiguration. */
  condition?: ConditionInput;
}

type Problem = { status: "False" | "Unknown"; reason: string; message: string };

const field = "spec.triggers.runConfigurations";

function sourceProblem(namespace: string, entry: string, lookup: TriggerLookup): Problem | undefined {
  const key = namespacedKey(entry, namespace);
  const source = lookup.configuration(key);
  if (!source)
    return {
      status: "Unknown",
      reason: "SourceNotFound",
      message: `${field}: RunConfiguration ${keyText(key)} does not exist (yet)`,
    };
  if (key.namespace === namespace) return undefined;
  const providerName = providerKey(source.spec.provider, key.namespace);
  const provider = lookup.provider(providerName);
  if (provider && providerAllows(provider, namespace)) return undefined;
  const why = provider
    ? `which does not allow namespace ${namespace} (${allowedText(provider)})`
    : "which does not exist";
  return {
    status: "False",
    reason: "SourceNotAllowed",
    message: `${field}: RunConfiguration ${keyText(key)} runs on Provider ${keyText(providerName)}, ${why}: its runs do not trigger this one`,
  };
}

function triggersCondition(entries: string[], problems: Problem[]): ConditionInput {
  const worst = problems.find((p) => p.status === "False") ?? problems[0];
  if (!worst)
    return {
      type: triggersConditionType,
      status: "True",
      reason: "Allowed",
      message: `${entries.length} RunConfiguration(s) may trigger this one`,
    };
  return {
    type: triggersConditionType,
    status: worst.status,
    reason: worst.reason,
    message: problems.map((p) => p.message).join("; "),
  };
}

export function triggerSources(configuration: RunConfiguration, lookup: TriggerLookup): TriggerSources {
  const namespace = configuration.metadata.namespace ?? "";
  const entries = configuration.spec.triggers?.runConfigurations ?? [];
  const sourceRuns: Record<string, string | undefined> = {};
  const problems: Problem[] = [];
  for (const entry of entries) {
    const problem = sourceProblem(namespace, entry, lookup);
    if (problem) problems.push(problem);
    else
      sourceRuns[entry] = lookup.configuration(
        namespacedKey(entry, namespace),
      )?.status?.latestRuns?.succeeded?.id;
  }
  return { sourceRuns, ...(entries.length ? { condition: triggersCondition(entries, problems) } : {}) };
}

/** The `namespace/name` a trigger entry names, as the controller's index keys it. */
export const triggerSourceText = (entry: string, namespace: string) =>
  keyText(namespacedKey(entry, namespace));
