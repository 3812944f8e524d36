import { type Static, Type } from "@sinclair/typebox";
import { Condition } from "../../apis/condition.ts";
import { PlatformComponentStatus } from "../../apis/platform/platform.ts";

/** What the API answers about a Platform: the parts a person follows, flattened from spec and status. */
export const PlatformView = Type.Object({
  name: Type.String(),
  namespace: Type.String(),
  phase: Type.String({ description: "status.phase; Unknown before the operator's first status" }),
  version: Type.Optional(Type.String({ description: "status.version: the release that actually runs" })),
  desiredVersion: Type.Optional(Type.String({ description: "spec.version: the release asked for" })),
  stopped: Type.Boolean(),
  ready: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
  generation: Type.Integer(),
  observedGeneration: Type.Optional(Type.Integer()),
  components: Type.Array(PlatformComponentStatus),
  conditions: Type.Array(Condition),
});
export type PlatformView = Static<typeof PlatformView>;
export type ComponentView = Static<typeof PlatformComponentStatus>;

/** The fields of a Platform the view reads (a structural subset of PlatformResource). */
export interface PlatformLike {
  metadata?: { name?: string; namespace?: string; generation?: number };
  spec?: { version?: string; stopped?: boolean };
  status?: {
    phase?: string;
    version?: string;
    ready?: string;
    message?: string;
    observedGeneration?: number;
    components?: ComponentView[];
    conditions?: PlatformView["conditions"];
  };
}

const defined = <T extends object>(object: T): T =>
  Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;

export function platformView(platform: PlatformLike): PlatformView {
  const status = platform.status ?? {};
  return defined({
    name: platform.metadata?.name ?? "",
    namespace: platform.metadata?.namespace ?? "",
    phase: status.phase ?? "Unknown",
    version: status.version,
    desiredVersion: platform.spec?.version,
    stopped: platform.spec?.stopped ?? false,
    ready: status.ready,
    message: status.message,
    generation: platform.metadata?.generation ?? 0,
    observedGeneration: status.observedGeneration,
    components: (status.components ?? []).map((component) => defined({ ...component })),
    conditions: status.conditions ?? [],
  });
}

/** One change a person watching an update cares about. */
export type PlatformChange =
  | { event: "phase"; data: { phase: string; version?: string; desiredVersion?: string; message?: string } }
  | { event: "component"; data: ComponentView & { removed?: boolean } };

const sameComponent = (a: ComponentView, b: ComponentView) =>
  a.phase === b.phase && a.ready === b.ready && a.version === b.version && a.message === b.message;

/** Phases where the Platform has settled: their change is reported after the components that led to it. */
const settledPhases = new Set(["Running", "Stopped", "Failed", "Degraded"]);

/**
 * The changes from one view to the next: a `phase` change when the phase, running or desired
 * version, or message moved, and a `component` change per component that appeared, changed or left.
 * A phase change comes first when work starts and last when the Platform settles, so a log of them
 * reads in the order things happened. With no previous view, everything is a change.
 */
export function platformChanges(previous: PlatformView | undefined, next: PlatformView): PlatformChange[] {
  const components: PlatformChange[] = [];
  const before = new Map((previous?.components ?? []).map((component) => [component.name, component]));
  for (const component of next.components) {
    const old = before.get(component.name);
    if (!old || !sameComponent(old, component)) components.push({ event: "component", data: component });
    before.delete(component.name);
  }
  for (const gone of before.values())
    components.push({ event: "component", data: { ...gone, removed: true } });
  const phaseChanged =
    !previous ||
    previous.phase !== next.phase ||
    previous.version !== next.version ||
    previous.desiredVersion !== next.desiredVersion ||
    previous.message !== next.message;
  if (!phaseChanged) return components;
  const phase: PlatformChange = {
    event: "phase",
    data: defined({
      phase: next.phase,
      version: next.version,
      desiredVersion: next.desiredVersion,
      message: next.message,
    }),
  };
  return previous && settledPhases.has(next.phase) ? [...components, phase] : [phase, ...components];
}
