/**
 * A caching policy: whether a step may reuse the outputs of an earlier identical execution instead
 * of running, and how old that execution may be. Settable on the Provider (`spec.defaultCaching`, the
 * default of its pipelines), the Pipeline (`spec.caching`), a step (`spec.steps[].caching`) and the
 * Run (`spec.caching`); each field is taken from the most specific level that sets it, in the order
 * Run > step > Pipeline > Provider (src/pipelines/caching.ts). Off unless some level enables it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { Duration } from "../duration.ts";
import { validations } from "../schema.ts";

/** The longest maxAge: a year (every duration the CRDs accept is bounded). */
export const maxCacheAge = "8760h";

const fields = {
  enabled: Type.Optional(
    Type.Boolean({
      description:
        "Whether the step may reuse an earlier execution's outputs instead of running (default false: every step runs every time).",
    }),
  ),
  maxAge: Type.Optional(
    Duration(
      "1s",
      maxCacheAge,
      "How old a reused execution may be (default: any age). argo only (a template's memoize.maxAge); kfp and vertex have no maximum age and refuse it.",
    ),
  ),
};

/** The policy's schema, with what it means at its level. */
export function CachePolicy(description: string) {
  return Type.Object(fields, {
    additionalProperties: false,
    description,
    ...validations({
      rule: "has(self.enabled) || has(self.maxAge)",
      message: "a caching policy sets enabled, maxAge or both",
    }),
  });
}

export type CachePolicy = Static<ReturnType<typeof CachePolicy>>;
