/**
 * What the Platform controller does next and what it reports (pure): which Components to create or
 * change, in which order, which to delete, and the Platform's phase. Every Component gets its new
 * spec at once; each waits for its own place in the dependency graph (component-gate.ts).
 */
import type { ComponentPhase } from "../apis/platform/component.ts";
import type { PlatformPhase } from "../apis/platform/platform.ts";
import { sameJson } from "../lib/canonical.ts";
import { gateBlockers, settledIn } from "./component-gate.ts";
import { dependentsOf, waves } from "./graph.ts";
import type { ComponentSpec, DesiredComponent } from "./render.ts";

/** A Component as the controller sees it in the cache. */
export interface ObservedComponent {
  objectName: string;
  spec: ComponentSpec;
  generation: number;
  deleting: boolean;
  status: {
    phase?: ComponentPhase;
    observedGeneration?: number;
    version?: string;
    ready?: string;
    message?: string;
  };
}

export interface PlatformObservation {
  /** The release the spec asks for. */
  targetVersion: string;
  stopped: boolean;
  deleting: boolean;
  previousPhase?: PlatformPhase;
  /** status.version: the release that last ran completely. */
  runningVersion?: string;
  /** The Platform's spec changed since its status was last written (status.observedGeneration is behind). */
  specChanged: boolean;
  desired: readonly DesiredComponent[];
  observed: readonly ObservedComponent[];
}

export interface ComponentRow {
  name: string;
  phase: string;
  ready: string;
  version?: string;
  message?: string;
  endpoint?: string;
}

export interface PlatformPlan {
  /**
   * The Components to create or change, in waves to apply one after another: dependencies before
   * their dependents (the reverse when stopping). A Component then never holds its new spec while
   * what it waits for still holds an old one, which the gate could mistake for settled.
   */
  apply: DesiredComponent[][];
  delete: string[];
  phase: PlatformPhase;
  message: string;
  /** status.version to report. */
  version?: string;
  /** e.g. "5/7". */
  ready: string;
  components: ComponentRow[];
  /** Deleting and every Component is gone: the finalizer can go. */
  finished: boolean;
  /** The Components failed at their desired spec, in catalog order, each with why. */
  failures: { name: string; message: string }[];
}

/** The Component's rollout of exactly `desired` is complete in the given phase. */
function settled(
  observed: ObservedComponent | undefined,
  desired: ComponentSpec,
  phase: ComponentPhase,
): boolean {
  return observed !== undefined && sameJson(observed.spec, desired) && settledIn(observed, phase);
}

type PlanBase = Pick<PlatformPlan, "ready" | "components" | "version" | "finished" | "failures">;

/** Deleting: in reverse order, a Component goes only when nothing that still exists depends on it. */
function planTeardown(input: PlatformObservation, base: PlanBase): PlatformPlan {
  const remaining = input.observed;
  const nodes = remaining.map((c) => ({
    name: c.objectName,
    dependencies: dependencyObjects(c, input.observed),
  }));
  const deletable = remaining
    .filter((c) => !c.deleting && dependentsOf(nodes, c.objectName).length === 0)
    .map((c) => c.objectName);
  return {
    ...base,
    apply: [],
    delete: deletable,
    phase: "Deleting",
    message:
      remaining.length === 0
        ? "every component removed"
        : `removing ${remaining.map((c) => shortName(c)).join(", ")}`,
    finished: remaining.length === 0,
  };
}

/** The changed Components in dependency waves (reversed when stopping: dependents stop first). */
function applyWaves(input: PlatformObservation, changes: DesiredComponent[]): DesiredComponent[][] {
  const order = waves(input.desired.map((d) => ({ name: d.name, dependencies: d.spec.dependencies })));
  return (input.stopped ? order.reverse() : order)
    .map((wave) => changes.filter((d) => wave.includes(d.name)))
    .filter((wave) => wave.length > 0);
}

export function planPlatform(input: PlatformObservation): PlatformPlan {
  const observedByName = new Map(input.observed.map((c) => [c.objectName, c]));
  const desiredByName = new Map(input.desired.map((d) => [d.objectName, d]));
  const rows = input.desired.map((d) => row(d, observedByName.get(d.objectName)));
  const readyCount = input.desired.filter(
    (d) => observedByName.get(d.objectName)?.status.phase === "Ready",
  ).length;
  const ready = `${readyCount}/${input.desired.length}`;
  const base: PlanBase = {
    ready,
    components: rows,
    version: input.runningVersion,
    finished: false,
    failures: [],
  };
  if (input.deleting) return planTeardown(input, base);

  // Components no longer desired (disabled) are removed right away.
  const toDelete = input.observed
    .filter((c) => !desiredByName.has(c.objectName) && !c.deleting)
    .map((c) => c.objectName);
  const pending = input.desired.filter((d) => {
    const observed = observedByName.get(d.objectName);
    return !observed || !sameJson(observed.spec, d.spec);
  });
  // a component that was never created has nothing to stop
  const changes = input.stopped ? pending.filter((d) => observedByName.has(d.objectName)) : pending;
  const apply = applyWaves(input, changes);

  const wanted: ComponentPhase = input.stopped ? "Stopped" : "Ready";
  const converged =
    pending.length === 0 &&
    input.desired.every((d) => settled(observedByName.get(d.objectName), d.spec, wanted)) &&
    input.observed.every((c) => desiredByName.has(c.objectName));
  const failed = input.desired
    .map((d) => ({ d, o: observedByName.get(d.objectName) }))
    // a failure of a spec being replaced (a fix on its way) is not the new spec's
    .filter(
      ({ d, o }) =>
        o?.status.phase === "Failed" &&
        o.status.observedGeneration === o.generation &&
        sameJson(o.spec, d.spec),
    );
  const failures = failed.map(({ d, o }) => ({ name: d.name, message: o?.status.message ?? "failed" }));
  const failure = failures.map((f) => `${f.name}: ${f.message}`).join("; ");
  const facts = {
    converged,
    changed: pending.length > 0 || input.specChanged,
    failure: failed.length > 0 ? failure : undefined,
    progress: describeProgress(input, changes, wanted),
    rows,
  };
  const { phase, message, version = input.runningVersion } = verdict(input, facts);
  return { ...base, apply, delete: toDelete, phase, message, version, failures };
}

/** The phase and message a Platform is in, from what the plan found. */
function verdict(
  input: PlatformObservation,
  facts: { converged: boolean; changed: boolean; failure?: string; progress: string; rows: ComponentRow[] },
): { phase: PlatformPhase; message: string; version?: string } {
  const { converged, changed, failure, progress } = facts;
  const plan = (phase: PlatformPhase, message: string) => ({ phase, message });
  if (input.stopped) {
    if (converged) return plan("Stopped", `every component stopped (${input.desired.length})`);
    return plan("Stopping", progress);
  }
  if (converged) {
    const version = input.targetVersion;
    return { phase: "Running", message: `every component ready at ${version}`, version };
  }
  const previous = input.previousPhase;
  const changing = changed || (previous !== "Running" && previous !== "Degraded");
  if (failure !== undefined) return changing ? plan("Failed", failure) : plan("Degraded", failure);
  if (previous === "Running" || previous === "Degraded") {
    if (!changed) {
      const notReady = facts.rows.filter((r) => r.phase !== "Ready").map((r) => `${r.name} is ${r.phase}`);
      return plan("Degraded", notReady.join("; ") || progress);
    }
    return plan("Updating", progress);
  }
  if (previous === "Stopped" || previous === "Stopping" || previous === "Starting")
    return plan("Starting", progress);
  if (input.runningVersion === undefined) return plan("Installing", progress);
  return plan("Updating", progress);
}

/** "applying …; waiting for …; queued X (after Y)": what changes now, what rolls, what waits for whom. */
function describeProgress(
  input: PlatformObservation,
  changes: readonly DesiredComponent[],
  wanted: ComponentPhase,
): string {
  const rolling: string[] = [];
  const queued: string[] = [];
  for (const d of input.desired) {
    const o = input.observed.find((c) => c.objectName === d.objectName);
    if (changes.includes(d) || !o || settledIn(o, wanted)) continue;
    const blockers = gateBlockers(
      o.spec,
      input.observed.filter((c) => c !== o),
    );
    if (blockers.length > 0) queued.push(`${d.name} (after ${blockers.join(", ")})`);
    else rolling.push(d.name);
  }
  const parts = [
    changes.length ? `applying ${changes.map((d) => d.name).join(", ")}` : "",
    rolling.length ? `waiting for ${rolling.join(", ")}` : "",
    queued.length ? `queued ${queued.join(", ")}` : "",
  ].filter(Boolean);
  return parts.join("; ") || "reconciling";
}

function row(desired: DesiredComponent, observed: ObservedComponent | undefined): ComponentRow {
  const endpoint = desired.endpoint ? { endpoint: desired.endpoint } : {};
  if (!observed)
    return { name: desired.name, phase: "Pending", ready: "0/0", message: "not created yet", ...endpoint };
  return {
    name: desired.name,
    ...endpoint,
    phase: observed.status.phase ?? "Pending",
    ready: observed.status.ready ?? "0/0",
    ...(observed.status.version ? { version: observed.status.version } : {}),
    // What a component that is not where it should be waits for or failed on ("1/1 ready" says
    // nothing the row does not). Its changes are detail: the Platform writes them at most once a second.
    ...(observed.status.message && !["Ready", "Stopped"].includes(observed.status.phase ?? "")
      ? { message: observed.status.message }
      : {}),
  };
}

const shortName = (c: ObservedComponent) => c.spec.component;

/** The object names of the Components `c` depends on, among those that exist. */
function dependencyObjects(c: ObservedComponent, all: readonly ObservedComponent[]): string[] {
  return all
    .filter((other) => c.spec.dependencies.includes(other.spec.component))
    .map((other) => other.objectName);
}
