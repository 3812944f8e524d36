import type { InformerState } from "./informer.ts";

/** What /readyz answers: ready or not, and the text saying why (one line per cache). */
export interface Readiness {
  ready: boolean;
  detail: string;
}

const stateText: Record<InformerState, string> = {
  synced: "ok",
  syncing: "failed: not synced yet",
  unserved: "failed: the API server does not serve it (is its CRD installed?)",
};

/**
 * Ready once every cache synced. Otherwise one line per cache in the API server's own /readyz
 * style (`[+]` ok, `[-]` failed and why), so a missing CRD is named by group/version/resource.
 */
export function cacheReadiness(caches: { resource: string; state: InformerState }[]): Readiness {
  if (caches.every((cache) => cache.state === "synced")) return { ready: true, detail: "ok" };
  const lines = caches.map(
    ({ resource, state }) => `[${state === "synced" ? "+" : "-"}]cache ${resource} ${stateText[state]}`,
  );
  return { ready: false, detail: `${lines.join("\n")}\nreadyz check failed` };
}
