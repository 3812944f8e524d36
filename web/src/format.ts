/** How long ago / how long, for tables (pure): `45s`, `12m`, `3h`, `2d`. */
export function span(fromIso: string | undefined, to: Date): string {
  if (!fromIso) return "—";
  const seconds = Math.max(0, Math.round((to.getTime() - new Date(fromIso).getTime()) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

export const time = (iso: string | undefined) =>
  iso ? new Date(iso).toISOString().replace("T", " ").slice(0, 19) : "—";

/** What went wrong, as one line for the page (an Error's message). */
export const messageOf = (failure: unknown): string =>
  failure instanceof Error ? failure.message : String(failure);
