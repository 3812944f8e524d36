const tone: Record<string, string> = {
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

/** A phase as a coloured label; the colour only repeats what the text says. */
export function PhaseBadge({ phase }: { phase: string }) {
  return <span className={`badge badge-${tone[phase] ?? "idle"}`}>{phase}</span>;
}
