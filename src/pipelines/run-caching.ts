/**
 * A Run's status records the caching policy each of its steps runs with (pure): computed from the
 * Run, its Pipeline and its Provider (src/pipelines/caching.ts) in the reconcile that submits it, and
 * kept as recorded after (a later change of the Provider or the Pipeline does not change what the run
 * was submitted with); added to whatever the Run's follow-up writes.
 */
import type { Run } from "../apis/pipelines/run.ts";
import type { RunDefinition } from "./backend.ts";
import { stepCachingStatus } from "./caching.ts";
import type { Follow, FollowAt, Settled } from "./sync/kind.ts";

export type RunCachingStatus = NonNullable<Run["status"]>["caching"];

/** The policies the Run's steps run with: undefined when no level sets caching. */
export function runCachingStatus(run: Run, at: FollowAt<RunDefinition>): RunCachingStatus {
  if (!at.justSynchronized || !at.definition) return run.status?.caching;
  return stepCachingStatus({
    provider: at.provider?.spec.defaultCaching,
    pipeline: at.definition.pipeline.spec,
    run: run.spec.caching,
  });
}

function settledWith(settled: Settled, caching: RunCachingStatus): Settled {
  return caching ? { ...settled, status: { ...settled.status, caching } } : settled;
}

/** `follow` writing the steps' caching policies with its status. */
export function withRunCaching(follow: Follow, caching: RunCachingStatus): Follow {
  if (follow.type === "settled") return settledWith(follow, caching);
  return { ...follow, next: (completion) => settledWith(follow.next(completion), caching) };
}
