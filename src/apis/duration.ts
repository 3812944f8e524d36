/** Durations as the CRDs take them: Go-style strings in whole units (`90s`, `30m`, `1h30m`). */
import { Type } from "@sinclair/typebox";
import { validations } from "./schema.ts";

/** A Go-style duration in whole units: `90s`, `30m`, `1h30m` (Go's time.ParseDuration and CEL's duration() read it). */
export const durationPattern = "^([0-9]+(h|m|s))+$";

/** A duration from `min` to `max` (both Go-style), checked by the API server: the pattern, then CEL. */
export function Duration(min: string, max: string, description: string) {
  return Type.String({
    pattern: durationPattern,
    maxLength: 32,
    description,
    ...validations({
      rule: `duration(self) >= duration('${min}') && duration(self) <= duration('${max}')`,
      message: `a duration from ${min} to ${max}`,
      reason: "FieldValueInvalid",
    }),
  });
}

/** `1h30m` → 5400. */
export function durationSeconds(duration: string): number {
  const units: Record<string, number> = { h: 3600, m: 60, s: 1 };
  let seconds = 0;
  for (const [, amount, unit] of duration.matchAll(/([0-9]+)(h|m|s)/g))
    seconds += Number(amount) * (units[unit ?? "s"] ?? 1);
  return seconds;
}
