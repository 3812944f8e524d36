/**
 * The conditions and the Event of a Platform's or a Component's phase (pure): Ready, Degraded and,
 * where the kind tracks it, Progressing, each with the phase's reason and message while it holds;
 * an Event when the phase changed.
 */
import { type Condition, type ConditionInput, setCondition } from "../kube/conditions.ts";
import type { StatusEvent } from "../kube/status-writer.ts";

export interface PhaseReport<P extends string = string> {
  phase: P;
  /** Why: the reason of Ready, and of Progressing and Degraded while they hold. */
  reason: string;
  message: string;
  ready: boolean;
  degraded: boolean;
  /** Whether the phase is a transition; undefined: the kind has no Progressing condition. */
  progressing?: boolean;
}

/** A condition that holds with the phase's reason and message, or not with `idleReason`. */
const flag = (type: string, holds: boolean, idleReason: string, report: PhaseReport): ConditionInput => ({
  type,
  status: holds ? "True" : "False",
  reason: holds ? report.reason : idleReason,
  message: holds ? report.message : "",
});

export function phaseConditions(
  previous: readonly Condition[] | undefined,
  report: PhaseReport,
  generation: number,
): Condition[] {
  const conditions: ConditionInput[] = [
    {
      type: "Ready",
      status: report.ready ? "True" : "False",
      reason: report.reason,
      message: report.message,
    },
    ...(report.progressing === undefined ? [] : [flag("Progressing", report.progressing, "Idle", report)]),
    flag("Degraded", report.degraded, "AsExpected", report),
  ];
  return conditions.reduce((list, c) => setCondition(list, c, generation), [...(previous ?? [])]);
}

/** The Event of a change of phase (a Warning when degraded); undefined when the phase is the same. */
export function phaseChangeEvent(
  previousPhase: string | undefined,
  report: PhaseReport,
): StatusEvent | undefined {
  if (previousPhase === report.phase) return undefined;
  return { type: report.degraded ? "Warning" : "Normal", reason: report.phase, message: report.message };
}

/** What a Platform's or a Component's status records and says of its phase. */
interface Phased {
  metadata: { generation?: number };
  status?: { phase?: string; conditions?: Condition[] };
}

/**
 * The status of `object` in the phase `report` tells (with the kind's own `fields`), and the Event
 * of a change of phase.
 */
export function phaseStatus<P extends string, F extends object>(
  object: Phased,
  report: PhaseReport<P>,
  fields: F,
) {
  const generation = object.metadata.generation ?? 0;
  const status = {
    phase: report.phase,
    ...fields,
    message: report.message,
    observedGeneration: generation,
    conditions: phaseConditions(object.status?.conditions, report, generation),
  };
  return { status, event: phaseChangeEvent(object.status?.phase, report) };
}
