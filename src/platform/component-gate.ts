/**
 * When a Component may roll its workload to its current spec (pure). The Platform hands every
 * Component its new spec at once; each Component then waits for its place in the dependency graph
 * itself, so a dependency's readiness reaches its dependents in one step instead of two (through the
 * Platform). Installing, starting, updating and restarting wait until every dependency is Ready at
 * this release and at its own latest spec; stopping waits until everything that depends on this
 * Component is Stopped.
 */
import type { ComponentPhase } from "../apis/platform/component.ts";
import type { ComponentSpec } from "./render.ts";

/** A Component of the same Platform, as the cache holds it. */
export interface SiblingComponent {
  spec: Pick<ComponentSpec, "component" | "version" | "stopped" | "dependencies">;
  generation: number;
  deleting: boolean;
  status: { phase?: ComponentPhase; observedGeneration?: number };
}

/** Its controller has reported `phase` for the Component's latest spec. */
export const settledIn = (sibling: SiblingComponent, phase: ComponentPhase): boolean =>
  !sibling.deleting &&
  sibling.status.phase === phase &&
  sibling.status.observedGeneration === sibling.generation;

/**
 * The components `spec`'s workload change waits for, sorted; empty when it may go ahead. A dependency
 * that does not exist yet blocks (disabled services are not in `dependencies`); a dependent that is
 * being deleted does not hold a stop back.
 */
export function gateBlockers(
  spec: SiblingComponent["spec"],
  siblings: readonly SiblingComponent[],
): string[] {
  if (spec.stopped) {
    return siblings
      .filter((s) => s.spec.dependencies.includes(spec.component) && !s.deleting)
      .filter((s) => !(s.spec.stopped && settledIn(s, "Stopped")))
      .map((s) => s.spec.component)
      .sort();
  }
  return spec.dependencies
    .filter((dependency) => {
      const s = siblings.find((sibling) => sibling.spec.component === dependency);
      return !(s && !s.spec.stopped && s.spec.version === spec.version && settledIn(s, "Ready"));
    })
    .sort();
}

/**
 * Whether a Component may already apply what runs nothing (claims, ServiceAccount, Service, Ingress)
 * before its own gate opens: once every dependency has begun its own rollout (reported a phase past
 * Pending for its latest spec). Preparing one level ahead keeps those writes off the critical path
 * without crowding the start of an install, where the first level's workloads must go first.
 */
export function mayPrepare(spec: SiblingComponent["spec"], siblings: readonly SiblingComponent[]): boolean {
  if (spec.stopped) return true;
  return spec.dependencies.every((dependency) => {
    const s = siblings.find((sibling) => sibling.spec.component === dependency);
    return (
      s !== undefined &&
      s.status.observedGeneration === s.generation &&
      s.status.phase !== undefined &&
      s.status.phase !== "Pending"
    );
  });
}

/** What a blocked Component reports while it waits. */
export const gateMessage = (stopping: boolean, blockers: readonly string[]): string =>
  stopping ? `waiting for ${blockers.join(", ")} to stop` : `waiting for ${blockers.join(", ")} to be Ready`;
