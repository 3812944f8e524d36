/**
 * The backends this operator runs, by provider type. Adding a backend is its module and one line
 * here; a Provider whose type has no line is `Ready=False, BackendUnavailable`.
 */
import { argoBackend } from "./argo/backend.ts";
import type { BackendRegistry } from "./backend.ts";

export const backends: BackendRegistry = {
  argo: argoBackend,
};

/**
 * The backend of a resource whose Provider no longer exists (its type is not recorded): argo, the
 * only backend so far. Recording the type in status is due when a second backend lands.
 */
export const defaultBackendType = "argo";
