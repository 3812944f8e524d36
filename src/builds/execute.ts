/**
 * Carrying out a decision of `decide`: its plan (plan.ts) through the runtime's one executor
 * (src/kube/plan.ts), with the build's backend stopping or starting its run. Every message that
 * leaves here is redacted of secret values (plan.ts).
 */
import type { ImageBuild, ImageBuildStatus } from "../apis/builds/imagebuild.ts";
import { type Effect, executePlan } from "../kube/plan.ts";
import type { StatusWriter } from "../kube/status-writer.ts";
import type { ReconcileContext, ReconcileResult } from "../kube/types.ts";
import { isCrossNamespace } from "./build-namespace.ts";
import type { Decision } from "./decide.ts";
import type { BuildMetrics } from "./metrics.ts";
import type { BuildObservation } from "./observe.ts";
import { planBuild, type RunCommand } from "./plan.ts";
import { types } from "./resource-types.ts";
import type { SecretReader } from "./secrets.ts";
import type { SlotReservations } from "./slot-reservations.ts";

export interface Executor {
  writer: StatusWriter<ImageBuildStatus>;
  secrets: SecretReader;
  metrics: BuildMetrics;
  /** The build slots taken by runs not yet seen (observe.ts reserves, this releases one not started). */
  slots: SlotReservations;
}

/** Stops or starts the build's run through its backend. */
function runEffect(
  metrics: BuildMetrics,
  observation: BuildObservation,
  context: ReconcileContext,
): Effect<ImageBuildStatus, RunCommand> {
  return async (command) => {
    if (!("observed" in observation)) throw new Error(`a blocked build has no run (${command.type})`);
    const { wiring, target, secretArgs } = observation;
    const { backend } = wiring;
    if (command.type === "StopRun") {
      await backend.stop(target, context);
      return [];
    }
    // looked at again just before: another build of this reference may have started it meanwhile
    const { run } = await backend.observe(target, context);
    await backend.start(target, context, run, secretArgs);
    if (run.state === "absent") metrics.started.inc({ backend: backend.name });
    return [];
  };
}

/** A run that would start in another namespace than the build's (the local backend runs in none). */
function runsElsewhere(observation: BuildObservation): boolean {
  if (!("observed" in observation)) return false;
  const { wiring, target } = observation;
  return wiring.backend.name !== "local" && isCrossNamespace(target.build, target.namespace);
}

export async function execute(
  executor: Executor,
  build: ImageBuild,
  observation: BuildObservation,
  decision: Decision & { kind: "act" },
  context: ReconcileContext,
): Promise<ReconcileResult | undefined> {
  const { secrets, writer, metrics } = executor;
  const backend = "wiring" in observation ? observation.wiring.backend.name : "none";
  const commands = planBuild(decision, {
    runElsewhere: runsElsewhere(observation),
    redact: (text) => secrets.redact(text),
    countFinished: (status) => metrics.countFinished(build.status?.phase, status, backend),
  });
  const target = { resource: types.imageBuild, object: build, writer, context };
  const effect = runEffect(metrics, observation, context);
  if (!decision.claimsSlot || !("observed" in observation)) return executePlan(commands, target, effect);
  // the slot decideObserving reserved is kept only for a run that was created
  let started = false;
  const run = observation.wiring.backend.runOf(observation.target);
  try {
    return await executePlan(commands, target, async (command, current) => {
      const followUps = await effect(command, current);
      if (command.type === "StartRun") started = true;
      return followUps;
    });
  } finally {
    if (!started) executor.slots.release(run);
  }
}
