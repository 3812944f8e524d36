/** KFP's naming rules, as the SDK applies them (kfp/dsl/utils.py). */

/** `maybe_rename_for_k8s`: lowercase, runs of other characters to one `-`, no `-` at either end. */
export function kfpName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^-0-9a-z]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-+|-+$/g, "");
}

export const componentName = (step: string) => `comp-${kfpName(step)}`;
export const executorLabel = (step: string) => `exec-${kfpName(step)}`;
export const taskName = kfpName;

/** `sanitize_input_name`: the name a parameter has in the IR (and so in a run's runtime parameters). */
export function kfpParameterName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^_0-9a-z]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

/** `validate_pipeline_name`. */
export const pipelineNamePattern = /^[a-z0-9][a-z0-9-]{0,127}$/;

/** Parameters are the arguments of a Python function in the SDK: identifiers that are not keywords. */
const identifier = /^[a-z_][a-z0-9_]*$/;
const pythonKeywords = new Set(
  (
    "and as assert async await break class continue def del elif else except finally for " +
    "from global if import in is lambda nonlocal not or pass raise return try while with yield"
  ).split(" "),
);

export function isParameterName(name: string): boolean {
  return identifier.test(name) && !pythonKeywords.has(name);
}
