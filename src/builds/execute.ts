/**
 * Carrying out a decision of `decide`: write the status (through the controller's StatusWriter,
 * which records the transition's Event only if the write happened), count what finished, then stop
 * or start the run. Every message that leaves here is redacted of secret values.
 */
import type { ImageBuild, ImageBuildStatus } from "../apis/builds/imagebuild.ts";
import { keyOf } from "../kube/keys.ts";
import { type StatusWriter, soonerRequeue } from "../kube/status-writer.ts";
import type { ReconcileContext, ReconcileResult } from "../kube/types.ts";
import { isCrossNamespace, jobCleanupFinalizer } from "./build-namespace.ts";
import type { Decision } from "./decide.ts";
import type { BuildMetrics } from "./metrics.ts";
import type { Gathered } from "./observe.ts";
import { types } from "./resource-types.ts";
import type { SecretReader } from "./secrets.ts";

export interface Executor {
  writer: StatusWriter<ImageBuildStatus>;
  secrets: SecretReader;
  metrics: BuildMetrics;
}

/** Deletes or starts the run the decision names. */
async function jobEffects(
  executor: Executor,
  gathered: Extract<Gathered, { observed: unknown }>,
  decision: Decision & { kind: "act" },
  context: ReconcileContext,
): Promise<void> {
  const { wiring, target, secretArgs } = gathered;
  const { backend } = wiring;
  if (decision.deleteJob) await backend.stop(target, context);
  if (!decision.startJob) return;
  // looked at again just before: another build of this reference may have started it meanwhile
  const { run } = await backend.observe(target, context);
  await backend.start(target, context, run, secretArgs);
  if (run.state === "absent") executor.metrics.started.inc({ backend: backend.name });
}

/**
 * A run about to start in another namespace: the build's cleanup finalizer, before its status says
 * Building and before the Job exists, so that no Job there can outlive its build.
 */
async function guardCrossNamespaceRun(
  gathered: Gathered,
  decision: Decision & { kind: "act" },
  context: ReconcileContext,
): Promise<void> {
  if (!decision.startJob || !("observed" in gathered)) return;
  const { wiring, target } = gathered;
  if (wiring.backend.name !== "local" && isCrossNamespace(target.build, target.namespace))
    await context.client.addFinalizer(types.imageBuild, keyOf(target.build), jobCleanupFinalizer);
}

function redacted(secrets: SecretReader, status: ImageBuildStatus): ImageBuildStatus {
  return {
    ...status,
    ...(status.message ? { message: secrets.redact(status.message) } : {}),
    ...(status.conditions
      ? { conditions: status.conditions.map((c) => ({ ...c, message: secrets.redact(c.message) })) }
      : {}),
  };
}

/**
 * Writes the decided status, then carries out the run's change — only if the status was written or
 * already stood: a status refused as stale was decided from an old copy, and so was its change (a
 * Job deleted on a timeout seen in an old copy would be started again from the next one).
 */
export async function execute(
  executor: Executor,
  build: ImageBuild,
  gathered: Gathered,
  decision: Decision & { kind: "act" },
  context: ReconcileContext,
): Promise<ReconcileResult | undefined> {
  const { secrets, writer, metrics } = executor;
  await guardCrossNamespaceRun(gathered, decision, context);
  let writeRequeueMs = 0;
  const status = decision.status && redacted(secrets, decision.status);
  if (status) {
    const event = decision.event && { ...decision.event, message: secrets.redact(decision.event.message) };
    const result = await writer.write(context, build, status, event);
    if (result.written) {
      const backend = "wiring" in gathered ? gathered.wiring.backend.name : "none";
      metrics.countFinished(build.status?.phase, status, backend);
    }
    // this writer does not pace: a write neither made nor needed was refused as stale
    writeRequeueMs = result.requeueAfterMs;
  }
  if (writeRequeueMs === 0 && "observed" in gathered) await jobEffects(executor, gathered, decision, context);
  const requeueAfterMs = soonerRequeue(decision.requeueAfterMs, writeRequeueMs);
  return requeueAfterMs ? { requeueAfterMs } : undefined;
}
