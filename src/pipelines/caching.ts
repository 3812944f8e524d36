/**
 * The caching policy a step runs with (pure). Each field comes from the most specific level that
 * sets it: the Run, then the step, then the Pipeline, then the Provider's defaultCaching; a field no
 * level sets is off (`enabled` false, no maxAge).
 *
 * The Run comes before the step on purpose: a Run's caching is the one switch a team has over a
 * whole run (e.g. `enabled: false` to run every step afresh after a data fix, whatever the pipeline
 * author cached), which KFP users lacked (kubeflow/pipelines#10839). KFP's own SDK decides the same:
 * `Client.create_run_from_pipeline_package(enable_caching=…)` overwrites every task's
 * `cachingOptions` (kfp/client/client.py `_override_caching_options`).
 */
import type { CachePolicy } from "../apis/pipelines/caching.ts";
import type { Pipeline } from "../apis/pipelines/pipeline.ts";

export interface CachingLevels {
  /** The Provider's `spec.defaultCaching`. */
  provider?: CachePolicy;
  pipeline: Pick<Pipeline["spec"], "caching" | "steps">;
  /** The Run's `spec.caching` (none for a Pipeline compiled on its own, or a schedule's runs). */
  run?: CachePolicy;
}

export interface EffectiveCaching {
  enabled: boolean;
  maxAge?: string;
  /** The field the maxAge came from (`spec.steps[1].caching.maxAge`), for a backend that cannot take it. */
  maxAgeField?: string;
}

/** A level's policy and the field path it is at, most specific first. */
function levels(input: CachingLevels, stepIndex: number): [CachePolicy | undefined, string][] {
  return [
    [input.run, "spec.caching"],
    [input.pipeline.steps[stepIndex]?.caching, `spec.steps[${stepIndex}].caching`],
    [input.pipeline.caching, "spec.caching"],
    [input.provider, "spec.defaultCaching"],
  ];
}

/** The policy of the pipeline's step at `stepIndex`. */
export function effectiveCaching(input: CachingLevels, stepIndex: number): EffectiveCaching {
  const ordered = levels(input, stepIndex);
  const enabled = ordered.find(([policy]) => policy?.enabled !== undefined)?.[0]?.enabled ?? false;
  const age = ordered.find(([policy]) => policy?.maxAge !== undefined);
  return age?.[0]?.maxAge ? { enabled, maxAge: age[0].maxAge, maxAgeField: `${age[1]}.maxAge` } : { enabled };
}

/** Whether any level sets a caching policy (else every step runs, as before caching existed). */
export function cachingSet(input: CachingLevels): boolean {
  return Boolean(
    input.run || input.provider || input.pipeline.caching || input.pipeline.steps.some((s) => s.caching),
  );
}

/** Each step's policy as the Run's status records it; undefined when no level sets one. */
export function stepCachingStatus(
  input: CachingLevels,
): { step: string; enabled: boolean; maxAge?: string }[] | undefined {
  if (!cachingSet(input)) return undefined;
  return input.pipeline.steps.map((step, index) => {
    const { enabled, maxAge } = effectiveCaching(input, index);
    return { step: step.name, enabled, ...(maxAge ? { maxAge } : {}) };
  });
}

/**
 * For a backend with no maximum age (kfp, vertex: KFP's IR CachingOptions has `enable_cache` and
 * `cache_key` only): the field of a maxAge that would apply to a step that caches, and the rule;
 * undefined when none does.
 */
export function unhonouredMaxAge(input: CachingLevels): { field: string; rule: string } | undefined {
  for (const index of input.pipeline.steps.keys()) {
    const policy = effectiveCaching(input, index);
    if (policy.enabled && policy.maxAgeField)
      return {
        field: policy.maxAgeField,
        rule: "KFP's caching has no maximum age of a reused execution (argo only): leave maxAge unset",
      };
  }
  return undefined;
}

/** Whether a step takes another step's outputs (a parameter from a step, or any input artifact). */
const takesStepOutputs = (step: Pipeline["spec"]["steps"][number]) =>
  Boolean(
    step.inputs?.artifacts?.length || step.inputs?.parameters?.some((parameter) => "step" in parameter.from),
  );

/**
 * For argo, whose memoization key is fixed when the Workflow is written (argo/memoize.ts): a step
 * that caches and takes another step's outputs would be keyed without those outputs' values, so a
 * cache hit could reuse an execution on other data. The field whose `enabled` turned caching on for
 * it, and the rule; undefined when no such step caches.
 */
export function uncacheableStepInputs(input: CachingLevels): { field: string; rule: string } | undefined {
  for (const [index, step] of input.pipeline.steps.entries()) {
    if (!takesStepOutputs(step) || !effectiveCaching(input, index).enabled) continue;
    const source = levels(input, index).find(([policy]) => policy?.enabled !== undefined)?.[1];
    return {
      field: `${source ?? `spec.steps[${index}].caching`}.enabled`,
      rule: `step ${step.name} takes another step's outputs, which argo's cache key cannot include (it is fixed when the Workflow is written): it would reuse an execution on other data; set caching.enabled false on the step`,
    };
  }
  return undefined;
}
