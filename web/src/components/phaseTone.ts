/** The colours a phase can have (the `badge-<tone>` classes and the step graph's `node-<tone>`). */
export type Tone = "good" | "busy" | "warn" | "bad" | "idle";

const tone: Record<string, Tone> = {
  Running: "good",
  Succeeded: "good",
  Building: "busy",
  Creating: "busy",
  Deleted: "idle",
  Ready: "good",
  Installing: "busy",
  Updating: "busy",
  Starting: "busy",
  Deploying: "busy",
  Stopping: "busy",
  Pending: "busy",
  Deleting: "busy",
  Stopped: "idle",
  Degraded: "warn",
  Failed: "bad",
};

/** A phase's colour; a phase not listed (Skipped, not started, …) is idle. */
export const phaseTone = (phase: string): Tone => tone[phase] ?? "idle";
