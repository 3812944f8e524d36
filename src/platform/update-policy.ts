/**
 * What a Platform does about a version update beyond rolling it (pure): whether the update waits for
 * its release's gates to be acknowledged, whether a failed update is rolled back, and so which
 * release the Platform renders.
 */
import type { UpdateFailurePolicy } from "../apis/platform/platform.ts";
import type { Release, ReleaseGate } from "./catalog.ts";

/** A failed update rolled back (status.rollback). */
export interface RollbackRecord {
  /** The release that failed. */
  from: string;
  /** The last release that was Running. */
  to: string;
  component: string;
  reason: string;
}

const normalize = (version: string) => version.replace(/^v/, "");
const sameVersion = (a: string | undefined, b: string | undefined) =>
  a !== undefined && b !== undefined && normalize(a) === normalize(b);

/**
 * The gates an update from `runningVersion` to `target` still waits for: those of the target release
 * not in `acknowledged`. An install (nothing ran yet) and the running release itself wait for none.
 */
export function pendingGates(
  runningVersion: string | undefined,
  target: Pick<Release, "version" | "gates">,
  acknowledged: readonly string[] = [],
): ReleaseGate[] {
  if (runningVersion === undefined || sameVersion(runningVersion, target.version)) return [];
  return (target.gates ?? []).filter((gate) => !acknowledged.includes(gate.name));
}

/** The UpdateGated condition's message: which gates, what they mean, and how to acknowledge them. */
export function gatedMessage(version: string, gates: readonly ReleaseGate[]): string {
  const names = gates.map((gate) => gate.name);
  const described = gates.map((gate) => `${gate.name} (${gate.description})`).join(", ");
  const flags = names.map((name) => `--acknowledge ${name}`).join(" ");
  return `the update to ${version} waits for acknowledgement of ${described}: run slipway update --version ${version} ${flags}, or add ${names.join(", ")} to spec.acknowledgedGates`;
}

/** The rollback that still holds: it names the release spec.version still asks for. */
export function activeRollback(
  recorded: RollbackRecord | undefined,
  specVersion: string,
): RollbackRecord | undefined {
  return recorded && sameVersion(recorded.from, specVersion) ? recorded : undefined;
}

export interface FailedUpdate {
  policy: UpdateFailurePolicy | undefined;
  /** The release spec.version asks for. */
  targetVersion: string;
  /** status.version: the last release that was Running, when this operator still knows it. */
  runningVersion: string | undefined;
  /** The Components that failed at the target's spec (the plan's failures), in catalog order. */
  failures: readonly { name: string; message: string }[];
}

/**
 * Whether a failing update is rolled back now: under the Rollback policy, when a component failed
 * while moving to another release than the one that last ran. An install (nothing ran yet) and a
 * failure at the running release (a patch, a restart) have nothing to roll back to: they halt.
 */
export function rollbackDecision(input: FailedUpdate): RollbackRecord | undefined {
  const [first] = input.failures;
  if (input.policy !== "Rollback" || first === undefined || input.runningVersion === undefined)
    return undefined;
  if (sameVersion(input.runningVersion, input.targetVersion)) return undefined;
  return {
    from: input.targetVersion,
    to: input.runningVersion,
    component: first.name,
    reason: first.message,
  };
}

/** The RolledBack condition's (and the Warning Event's) message. */
export function rollbackMessage(rollback: RollbackRecord): string {
  return `rolled back from ${rollback.from} to ${rollback.to}: ${rollback.component} failed: ${rollback.reason}`;
}
