/**
 * Caching on argo: a step whose effective policy enables it gets its template's `memoize` (Memoize in
 * pkg/apis/workflow/v1alpha1/workflow_types.go, argo-workflows v4: `key`, `maxAge`, `cache.configMap`).
 * Facts from the controller this follows (workflow/controller/operator.go and cache/, v4.0.5):
 * - the key must match `^[a-zA-Z0-9][-a-zA-Z0-9]*$` (cache.go cacheKeyRegex), so it is a hash;
 * - an entry is a hit when it has a node id, outputs or not (Entry.Hit), and older than `maxAge`
 *   (Go's time.ParseDuration, which reads Slipway's durations) it is not; a hit node Succeeds at
 *   once and its status says `memoizationStatus.hit: true`;
 * - the cache is a ConfigMap of the Workflow's namespace (the Provider's), created by the workflow
 *   controller with the label `workflows.argoproj.io/configmap-type: Cache` (configmap_cache.go);
 *   its Role needs `create` and `update` on configmaps (docs/memoization.md).
 *
 * The key is what makes two executions the same: the Pipeline's version (any change to the pipeline
 * is a new one), the step's rendered template (image, command, args, env, resources, the Provider's
 * document) and the run's parameters. A WorkflowTemplate is not memoized: the parameters it will be
 * submitted with are not known when it is written.
 */
import { shortHash, withHashSuffix } from "../../lib/canonical.ts";
import type { ProviderConfig, RunDefinition } from "../backend.ts";
import { type CachingLevels, effectiveCaching, uncacheableStepInputs } from "../caching.ts";
import { canonical } from "../version.ts";

/** The ConfigMap that caches the outputs of a Provider's memoized steps, in its namespace. */
export function cacheConfigMapName(provider: ProviderConfig): string {
  const name = `slipway-step-cache.${provider.key.name}`;
  return name.length <= 253 ? name : withHashSuffix(name, name, 253);
}

interface Template {
  name: string;
  [field: string]: unknown;
}

interface Spec {
  templates: Template[];
  arguments?: { parameters?: { name: string; value: string }[] };
}

/** The memoization key of a step's template: `slipway-` and a SHA-256 of what makes it the same execution. */
export function memoizationKey(version: string, template: Template, parameters: unknown): string {
  return `slipway-${shortHash(JSON.stringify(canonical({ version, template, parameters })), 64)}`;
}

/**
 * `spec` (a Workflow's or a CronWorkflow's workflowSpec) with `memoize` on each step that caches;
 * `templateOf`: a step's template name.
 */
const cachingLevels = (run: RunDefinition, provider: ProviderConfig): CachingLevels => ({
  provider: provider.spec.defaultCaching,
  pipeline: run.pipeline.spec,
  run: run.caching,
});

/** Why argo cannot cache as the run asks (a caching step that takes other steps' outputs), naming the field. */
export function argoCachingProblem(run: RunDefinition, provider: ProviderConfig): string | undefined {
  const problem = uncacheableStepInputs(cachingLevels(run, provider));
  return problem && `${problem.field}: ${problem.rule}`;
}

export function memoized<S extends Spec>(
  spec: S,
  run: RunDefinition,
  provider: ProviderConfig,
  templateOf: (step: string) => string,
): S {
  const levels = cachingLevels(run, provider);
  const policies = new Map(
    run.pipeline.spec.steps.map((step, index) => [templateOf(step.name), effectiveCaching(levels, index)]),
  );
  const parameters = spec.arguments?.parameters ?? [];
  const templates = spec.templates.map((template) => {
    const policy = policies.get(template.name);
    if (!policy?.enabled) return template;
    const memoize = {
      key: memoizationKey(run.pipeline.version, template, parameters),
      ...(policy.maxAge ? { maxAge: policy.maxAge } : {}),
      cache: { configMap: { name: cacheConfigMapName(provider) } },
    };
    return { ...template, memoize };
  });
  return { ...spec, templates };
}
