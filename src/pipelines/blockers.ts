/**
 * Why a pipeline resource cannot be synchronized yet, as explicit tagged values. Provider blockers
 * are re-examined when the Provider changes (a watch); the others are polled.
 */

export type ProviderBlockerReason =
  | "ProviderNotFound"
  | "ProviderNotAllowed"
  | "BackendUnavailable"
  /** It names a ServiceAccount the operator's allowlist does not hold (its ProviderAccepted is False). */
  | "ServiceAccountNotAllowed"
  /** Its Ready condition is not True for its current generation: waits (the Provider is watched). */
  | "ProviderNotReady";
export type DefinitionBlockerReason =
  | "PipelineNotFound"
  | "PipelineNotSynchronized"
  | "PipelineVersionUnavailable"
  | "ParameterUnresolved"
  | "InvalidSchedule";

export interface ProviderBlocker {
  reason: ProviderBlockerReason;
  /** Names the field and the rule, e.g. `spec.provider: Provider ml/argo does not exist`. */
  message: string;
}

export interface DefinitionBlocker {
  reason: DefinitionBlockerReason;
  message: string;
}

export type Blocker = ProviderBlocker | DefinitionBlocker;

/** What a backend gets for a resource, or why it cannot be built yet. */
export type Buildable<D> = { type: "ready"; value: D } | { type: "blocked"; blocker: DefinitionBlocker };

export const ready = <D>(value: D): Buildable<D> => ({ type: "ready", value });
export const blocked = (reason: DefinitionBlockerReason, message: string): Buildable<never> => ({
  type: "blocked",
  blocker: { reason, message },
});
