/**
 * The backends this operator runs, by provider type. Adding a backend is its module and one line
 * here; a Provider whose type has no line is `Ready=False, BackendUnavailable`. The first line also
 * cleans up after a resource whose Provider no longer exists (its type is not recorded in status;
 * recording it is due when a second backend lands).
 */
import { argoBackend } from "./argo/backend.ts";
import type { BackendRegistry } from "./backend.ts";

export const backends: BackendRegistry = {
  argo: argoBackend,
};
