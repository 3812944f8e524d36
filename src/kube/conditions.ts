/** A status condition with Kubernetes semantics (metav1.Condition). */
export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  observedGeneration?: number;
  lastTransitionTime: string;
}

export type ConditionInput = Omit<Condition, "lastTransitionTime" | "observedGeneration">;

/**
 * Returns a new list with `condition` set: lastTransitionTime changes only when the status changes;
 * reason, message and observedGeneration are always updated. Other conditions keep their order.
 */
export function setCondition(
  list: readonly Condition[] | undefined,
  condition: ConditionInput,
  observedGeneration: number | undefined,
  now: Date = new Date(),
): Condition[] {
  const conditions = list ?? [];
  const existing = conditions.find((c) => c.type === condition.type);
  const lastTransitionTime =
    existing && existing.status === condition.status ? existing.lastTransitionTime : rfc3339(now);
  const next: Condition = {
    type: condition.type,
    status: condition.status,
    reason: condition.reason,
    message: condition.message,
    ...(observedGeneration === undefined ? {} : { observedGeneration }),
    lastTransitionTime,
  };
  if (!existing) return [...conditions, next];
  return conditions.map((c) => (c.type === condition.type ? next : c));
}

export function getCondition(list: readonly Condition[] | undefined, type: string): Condition | undefined {
  return list?.find((c) => c.type === type);
}

export function isConditionTrue(list: readonly Condition[] | undefined, type: string): boolean {
  return getCondition(list, type)?.status === "True";
}

export function removeCondition(list: readonly Condition[] | undefined, type: string): Condition[] {
  return (list ?? []).filter((c) => c.type !== type);
}

/** RFC 3339 with second precision, as metav1.Time serialises. */
export function rfc3339(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
