/**
 * A build's decision (decide.ts) as the commands `executePlan` (src/kube/plan.ts) carries out: the
 * cleanup finalizer of a run in another namespace, the redacted status with its Event, then the run's
 * change, then when to come back. Pure. The run's change comes after the status, so it is made only if
 * that status stood: one refused as stale was decided from an old copy, and so was the change (a Job
 * deleted on a timeout seen in an old copy would be started again from the next one).
 */
import type { ImageBuildStatus } from "../apis/builds/imagebuild.ts";
import type { PlanCommand } from "../kube/plan.ts";
import type { StatusEvent } from "../kube/status-writer.ts";
import { jobCleanupFinalizer } from "./build-namespace.ts";
import type { Decision } from "./decide.ts";

/**
 * The build's own commands, carried out by its backend (execute.ts): stop its run (delete the Job, stop
 * the local build), or start it (looked at again just before; a running one is joined as an owner).
 */
export type RunCommand = { type: "StopRun" } | { type: "StartRun" };

export type BuildCommand = PlanCommand<ImageBuildStatus, RunCommand>;

export interface BuildPlanContext {
  /** The run starts in another namespace than the build's, where no owner reference reaches it. */
  runElsewhere: boolean;
  /** Removes every secret value the operator has seen from a text. */
  redact: (text: string) => string;
  /** Counts what finished, once the status saying so was written. */
  countFinished: (status: ImageBuildStatus) => void;
}

function redactedStatus(redact: BuildPlanContext["redact"], status: ImageBuildStatus): ImageBuildStatus {
  return {
    ...status,
    ...(status.message ? { message: redact(status.message) } : {}),
    ...(status.conditions
      ? { conditions: status.conditions.map((c) => ({ ...c, message: redact(c.message) })) }
      : {}),
  };
}

function setStatus(
  decision: Decision & { kind: "act" },
  status: ImageBuildStatus,
  { redact, countFinished }: BuildPlanContext,
): BuildCommand {
  const event: StatusEvent | undefined = decision.event && {
    ...decision.event,
    message: redact(decision.event.message),
  };
  return {
    type: "SetStatus",
    status,
    ...(event ? { events: [event] } : {}),
    afterWrite: async () => countFinished(status),
  };
}

export function planBuild(decision: Decision & { kind: "act" }, context: BuildPlanContext): BuildCommand[] {
  const status = decision.status && redactedStatus(context.redact, decision.status);
  return [
    // before the status says Building and before the Job exists: no Job there outlives its build
    ...(decision.startJob && context.runElsewhere
      ? [{ type: "AddFinalizer" as const, finalizer: jobCleanupFinalizer }]
      : []),
    ...(status ? [setStatus(decision, status, context)] : []),
    ...(decision.deleteJob ? [{ type: "StopRun" as const }] : []),
    ...(decision.startJob ? [{ type: "StartRun" as const }] : []),
    ...(decision.requeueAfterMs ? [{ type: "Requeue" as const, afterMs: decision.requeueAfterMs }] : []),
  ];
}
