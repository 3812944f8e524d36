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
 * Ready once every cache synced, an optional one (a watch of another project's kind) also when its
 * kind is not served. Otherwise one line per cache in the API server's own /readyz
 * style (`[+]` ok, `[-]` failed and why), so a missing CRD is named by group/version/resource.
 */
export function cacheReadiness(
  caches: { resource: string; state: InformerState; optional?: boolean }[],
): Readiness {
  const fine = (cache: (typeof caches)[number]) =>
    cache.state === "synced" || (cache.optional === true && cache.state === "unserved");
  if (caches.every(fine)) return { ready: true, detail: "ok" };
  const lines = caches.map((cache) =>
    fine(cache)
      ? `[+]cache ${cache.resource} ${cache.state === "synced" ? "ok" : "ok: optional, not served"}`
      : `[-]cache ${cache.resource} ${stateText[cache.state]}`,
  );
  return { ready: false, detail: `${lines.join("\n")}\nreadyz check failed` };
}
