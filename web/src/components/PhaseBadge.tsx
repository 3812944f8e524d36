import { phaseTone } from "./phaseTone.ts";

/** A phase as a coloured label; the colour only repeats what the text says. */
export function PhaseBadge({ phase }: { phase: string }) {
  return <span className={`badge badge-${phaseTone(phase)}`}>{phase}</span>;
}
