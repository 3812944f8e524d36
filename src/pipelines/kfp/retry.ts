/**
 * A step's retry as KFP's `PipelineTaskSpec.RetryPolicy` (pipeline_spec.proto: max_retry_count,
 * backoff_duration and backoff_max_duration as google.protobuf.Duration, backoff_factor a double),
 * as kfp.dsl's `task.set_retry(...)` compiles it: the SDK always writes all four, its defaults where
 * a call gave none (`0s`, `2.0`, `3600s`; kfp/dsl/structures.py RetryPolicy.to_proto), durations in
 * whole seconds.
 */
import { durationSeconds } from "../../apis/duration.ts";
import { defaultRetryPolicy, type StepRetry } from "../../apis/pipelines/pipeline.ts";
import { CompileError } from "./errors.ts";
import type { RetryPolicySpec } from "./ir.ts";

/** What the SDK writes for a backoff a call did not set. */
export const sdkRetryDefaults = { backoffDuration: "0s", backoffFactor: 2, backoffMaxDuration: "3600s" };

const seconds = (duration: string) => `${durationSeconds(duration)}s`;

export function retryPolicy(retry: StepRetry, field: string): RetryPolicySpec {
  const policy = retry.policy ?? defaultRetryPolicy;
  // KFP's own Argo compiler writes a retryStrategy without retryPolicy (backend/src/v2/compiler/argocompiler/container.go): Argo's default
  if (policy !== defaultRetryPolicy)
    throw new CompileError(
      `${field}.retry.policy`,
      `KFP's IR has no retry policy: the kfp and vertex backends retry only a step that failed (${defaultRetryPolicy}); ${policy} is for argo`,
    );
  const backoff = retry.backoff;
  return {
    maxRetryCount: retry.limit,
    backoffDuration: backoff ? seconds(backoff.duration) : sdkRetryDefaults.backoffDuration,
    // no backoff: no wait, so the factor multiplies nothing and is the SDK's; with one, Slipway's default 1
    backoffFactor: backoff ? (backoff.factor ?? 1) : sdkRetryDefaults.backoffFactor,
    backoffMaxDuration: backoff?.maxDuration
      ? seconds(backoff.maxDuration)
      : sdkRetryDefaults.backoffMaxDuration,
  };
}
