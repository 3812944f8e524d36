/** The environment every backend gives a pipeline step: one rule, whatever runs the step. */
import type { Static } from "@sinclair/typebox";
import type { NamedValue } from "../apis/pipelines/common.ts";

export type Named = Static<typeof NamedValue>;

/** Later lists override earlier ones by name, keeping the first position (env order matters to `$(VAR)`). */
export function mergeNamed(...lists: (Named[] | undefined)[]): Named[] {
  const byName = new Map<string, string>();
  for (const list of lists) for (const item of list ?? []) byName.set(item.name, item.value);
  return [...byName].map(([name, value]) => ({ name, value }));
}

/**
 * A step's env: the pipeline's, then the step's, then `SLIPWAY_BEAM_ARGS` (the Provider's default
 * Beam arguments overridden by the pipeline's, as JSON) when there are any.
 */
export function stepEnvironment(
  pipelineEnv: Named[] | undefined,
  stepEnv: Named[] | undefined,
  defaultBeamArgs: Named[] | undefined,
  beamArgs: Named[] | undefined,
): Named[] {
  const beam = mergeNamed(defaultBeamArgs, beamArgs);
  return mergeNamed(
    pipelineEnv,
    stepEnv,
    beam.length ? [{ name: "SLIPWAY_BEAM_ARGS", value: JSON.stringify(beam) }] : [],
  );
}
