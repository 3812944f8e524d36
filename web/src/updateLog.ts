import type { PlatformEvent } from "./api.ts";

export interface LogLine {
  at: string;
  text: string;
  tone: "info" | "good" | "bad";
}

export type Outcome = "following" | "succeeded" | "failed";

export interface UpdateFollow {
  target: string;
  lines: LogLine[];
  outcome: Outcome;
}

const clock = (date: Date) => date.toISOString().slice(11, 19);

export function startFollow(target: string, from: string | undefined, now: Date): UpdateFollow {
  const text = from ? `Update from ${from} to ${target} requested` : `Update to ${target} requested`;
  return { target, outcome: "following", lines: [{ at: clock(now), text, tone: "info" }] };
}

/**
 * The next state of an update's log after one event from the server: a line per phase or component
 * change; the outcome is succeeded once the Platform is Running at the target version, failed while
 * it is Failed or Degraded (with the reason), and following otherwise.
 */
export function followEvent(follow: UpdateFollow, event: PlatformEvent, now: Date): UpdateFollow {
  const at = clock(now);
  if (event.event === "phase") {
    const { phase, version, message } = event.data;
    if (phase === "Running" && version === follow.target) {
      const line: LogLine = { at, text: `Platform Running at ${version}: update complete`, tone: "good" };
      return { ...follow, outcome: "succeeded", lines: [...follow.lines, line] };
    }
    const failed = phase === "Failed" || phase === "Degraded";
    const running = version ? ` (running ${version})` : "";
    const reason = message ? `: ${message}` : "";
    const line: LogLine = { at, text: `Platform ${phase}${running}${reason}`, tone: failed ? "bad" : "info" };
    return { ...follow, outcome: failed ? "failed" : "following", lines: [...follow.lines, line] };
  }
  if (event.event === "component") {
    const { name, phase, ready, version, message, removed } = event.data;
    // A message that only repeats the ready count adds nothing to the line.
    const detail = message && message !== `${ready} ready` ? ` — ${message}` : "";
    const text = removed
      ? `${name} removed`
      : `${name}: ${phase}, ${ready} ready${version ? `, version ${version}` : ""}${detail}`;
    return { ...follow, lines: [...follow.lines, { at, text, tone: phase === "Failed" ? "bad" : "info" }] };
  }
  if (event.event === "absent") {
    const line: LogLine = { at, text: "The Platform no longer exists", tone: "bad" };
    return { ...follow, outcome: "failed", lines: [...follow.lines, line] };
  }
  return follow;
}
