import { describe, expect, it } from "vitest";
import type { ComponentPhase } from "../../../src/apis/platform/component.ts";
import type { PlatformPhase } from "../../../src/apis/platform/platform.ts";
import { findRelease } from "../../../src/platform/catalog.ts";
import { gateBlockers, settledIn } from "../../../src/platform/component-gate.ts";
import {
  type ObservedComponent,
  type PlatformObservation,
  planPlatform,
} from "../../../src/platform/platform-plan.ts";
import { type DesiredComponent, renderComponents } from "../../../src/platform/render.ts";

type Spec = Parameters<typeof renderComponents>[2];
const baseSpec: Spec = {
  stopped: false,
  ingress: { enabled: true },
  singleNode: true,
  storage: { artifactsSize: "50Gi", registrySize: "25Gi", builderCacheSize: "25Gi", databaseSize: "10Gi" },
  logLevel: "INFO",
  components: {},
};

function desired(version: string, spec: Partial<Spec> = {}): DesiredComponent[] {
  const release = findRelease(version);
  if (!release) throw new Error(version);
  return renderComponents("slipway", "slipway", { ...baseSpec, ...spec }, release);
}

/** A Component whose controller has finished rolling out `d` into `phase`. */
function settledAs(d: DesiredComponent, phase: ComponentPhase, generation = 1): ObservedComponent {
  return {
    objectName: d.objectName,
    spec: structuredClone(d.spec),
    generation,
    deleting: false,
    status: { phase, observedGeneration: generation, version: d.spec.version, ready: "1/1" },
  };
}

function observe(
  input: Partial<PlatformObservation> & Pick<PlatformObservation, "desired">,
): PlatformObservation {
  return {
    targetVersion: "0.1.0",
    stopped: false,
    deleting: false,
    specChanged: false,
    observed: [],
    ...input,
  };
}

/**
 * Drives planPlatform and the Components' gates against a world where a Component whose gate is open
 * settles in one step: returns the names that rolled at each step and the phases reported. The first
 * reconcile follows the spec change.
 */
function drive(
  start: ObservedComponent[],
  target: DesiredComponent[],
  options: { stopped?: boolean; previousPhase?: PlatformPhase; runningVersion?: string } = {},
) {
  let observed = start;
  let previousPhase = options.previousPhase;
  let runningVersion = options.runningVersion;
  const steps: string[][] = [];
  const phases: PlatformPhase[] = [];
  const applied: string[][][] = [];
  for (let i = 0; i < 10; i++) {
    const plan = planPlatform(
      observe({
        desired: target,
        observed,
        stopped: options.stopped ?? false,
        targetVersion: target[0]?.spec.version ?? "0.1.0",
        specChanged: i === 0,
        ...(previousPhase ? { previousPhase } : {}),
        ...(runningVersion ? { runningVersion } : {}),
      }),
    );
    phases.push(plan.phase);
    previousPhase = plan.phase;
    runningVersion = plan.version;
    if (plan.apply.length > 0) applied.push(plan.apply.map((wave) => wave.map((d) => d.name)));
    for (const d of plan.apply.flat()) {
      const before = observed.find((o) => o.objectName === d.objectName);
      const next = {
        objectName: d.objectName,
        spec: structuredClone(d.spec),
        generation: (before?.generation ?? 0) + 1,
        deleting: false,
        status: before?.status ?? {},
      };
      observed = before ? observed.map((o) => (o === before ? next : o)) : [...observed, next];
    }
    const rolled = observed.filter(
      (o) =>
        !settledIn(o, o.spec.stopped ? "Stopped" : "Ready") &&
        gateBlockers(
          o.spec,
          observed.filter((other) => other !== o),
        ).length === 0,
    );
    if (rolled.length === 0) break;
    steps.push(rolled.map((o) => o.spec.component));
    observed = observed.map((o) =>
      rolled.includes(o)
        ? settledAs(
            target.find((d) => d.objectName === o.objectName) as DesiredComponent,
            o.spec.stopped ? "Stopped" : "Ready",
            o.generation,
          )
        : o,
    );
  }
  return { steps, phases, observed, runningVersion, applied };
}

const waves = [
  ["postgres", "object-store", "registry"],
  ["mlflow", "workflow-engine", "api-server"],
  ["web"],
];

describe("planPlatform", () => {
  it("installs in dependency order, independent components together, then reports Running at the version", () => {
    const run = drive([], desired("0.1.0"));
    expect(run.steps).toEqual(waves);
    expect(run.phases).toEqual(["Installing", "Installing", "Installing", "Running"]);
    expect(run.runningVersion).toBe("0.1.0");
  });

  it("applies every Component in one reconcile, dependencies in an earlier wave than their dependents", () => {
    const run = drive([], desired("0.1.0"));
    expect(run.applied).toEqual([waves]);
    const stop = drive(run.observed, desired("0.1.0", { stopped: true }), {
      stopped: true,
      previousPhase: "Running",
    });
    expect(stop.applied).toEqual([[...waves].reverse()]);
  });

  it("names what rolls and what waits for whom", () => {
    const target = desired("0.1.0");
    const postgres = target.find((d) => d.name === "postgres") as DesiredComponent;
    // every Component created; postgres still deploying, the rest settled or waiting
    const observed = target.map((d) =>
      d === postgres
        ? { ...settledAs(d, "Deploying"), status: { phase: "Deploying" as const, observedGeneration: 1 } }
        : settledAs(
            d,
            ["object-store", "registry", "workflow-engine"].includes(d.name) ? "Ready" : "Pending",
          ),
    );
    const plan = planPlatform(observe({ desired: target, observed, previousPhase: "Installing" }));
    expect(plan.apply).toEqual([]);
    expect(plan.phase).toBe("Installing");
    expect(plan.message).toBe(
      "waiting for postgres; queued mlflow (after postgres), api-server (after postgres), web (after api-server)",
    );
    expect(plan.ready).toBe("3/7");
  });

  it("gives a row the message of a component that waits or fails, not of one that is Ready", () => {
    const target = desired("0.1.0");
    const observed = target.map((d) => settledAs(d, "Ready"));
    const web = observed.find((o) => o.spec.component === "web") as ObservedComponent;
    web.status = { ...web.status, phase: "Pending", message: "waiting for api-server to be Ready" };
    const postgres = observed.find((o) => o.spec.component === "postgres") as ObservedComponent;
    postgres.status = { ...postgres.status, message: "1/1 ready" };
    const plan = planPlatform(observe({ desired: target, observed, previousPhase: "Updating" }));
    expect(plan.components.find((r) => r.name === "web")?.message).toBe("waiting for api-server to be Ready");
    expect(plan.components.find((r) => r.name === "postgres")).not.toHaveProperty("message");
  });

  it("updates one dependency level at a time, rolling, then reports the new version", () => {
    const old = desired("0.0.9").map((d) => settledAs(d, "Ready"));
    const run = drive(old, desired("0.1.0"), { previousPhase: "Running", runningVersion: "0.0.9" });
    expect(run.steps).toEqual(waves);
    expect(run.phases.slice(0, -1).every((p) => p === "Updating")).toBe(true);
    expect(run.phases.at(-1)).toBe("Running");
    expect(run.runningVersion).toBe("0.1.0");
  });

  it("keeps reporting the old version while an update is under way", () => {
    const old = desired("0.0.9").map((d) => settledAs(d, "Ready"));
    const plan = planPlatform(
      observe({
        desired: desired("0.1.0"),
        observed: old,
        previousPhase: "Running",
        runningVersion: "0.0.9",
      }),
    );
    expect(plan.phase).toBe("Updating");
    expect(plan.version).toBe("0.0.9");
  });

  it("stops in reverse order and reports Stopped; starting again follows the graph", () => {
    const running = desired("0.1.0").map((d) => settledAs(d, "Ready"));
    const stop = drive(running, desired("0.1.0", { stopped: true }), {
      stopped: true,
      previousPhase: "Running",
    });
    // a component stops as soon as nothing depending on it still runs
    expect(stop.steps).toEqual([["mlflow", "workflow-engine", "web"], ["api-server"], waves[0]]);
    expect(stop.phases).toEqual(["Stopping", "Stopping", "Stopping", "Stopped"]);
    const start = drive(stop.observed, desired("0.1.0"), {
      previousPhase: "Stopped",
      runningVersion: "0.1.0",
    });
    expect(start.steps).toEqual(waves);
    expect(start.phases).toEqual(["Starting", "Starting", "Starting", "Running"]);
  });

  it("restarts every component in dependency order", () => {
    const running = desired("0.1.0").map((d) => settledAs(d, "Ready"));
    const run = drive(running, desired("0.1.0", { restartedAt: "2026-11-30T10:00:00Z" }), {
      previousPhase: "Running",
      runningVersion: "0.1.0",
    });
    expect(run.steps).toEqual(waves);
    expect(run.phases[0]).toBe("Updating");
  });

  it("is Failed naming the component when one fails during an install", () => {
    const target = desired("0.1.0");
    const observed = target
      .filter((d) => ["postgres", "object-store", "registry"].includes(d.name))
      .map((d) => settledAs(d, "Ready"));
    const mlflow = target.find((d) => d.name === "mlflow") as DesiredComponent;
    observed.push({
      ...settledAs(mlflow, "Failed"),
      status: { phase: "Failed", observedGeneration: 1, message: "pod x: CrashLoopBackOff" },
    });
    const plan = planPlatform(observe({ desired: target, observed, previousPhase: "Installing" }));
    expect(plan.phase).toBe("Failed");
    expect(plan.message).toBe("mlflow: pod x: CrashLoopBackOff");
    expect(plan.failures).toEqual([{ name: "mlflow", message: "pod x: CrashLoopBackOff" }]);
    expect(plan.apply.map((wave) => wave.map((d) => d.name))).toEqual([
      ["workflow-engine", "api-server"],
      ["web"],
    ]);
  });

  it("does not count a failure the Component reported for an older generation", () => {
    const target = desired("0.1.0");
    const observed = target.map((d) => settledAs(d, "Ready"));
    const mlflow = observed.find((o) => o.spec.component === "mlflow") as ObservedComponent;
    mlflow.generation = 2;
    mlflow.status = { phase: "Failed", observedGeneration: 1, message: "old failure" };
    const plan = planPlatform(observe({ desired: target, observed, previousPhase: "Failed" }));
    expect(plan.phase).toBe("Installing");
  });

  it("does not count the failure of a spec the plan is replacing (a fix being applied is not Failed)", () => {
    const broken = desired("0.1.0", { components: { mlflow: { podAnnotations: { outcome: "crashloop" } } } });
    const fixed = desired("0.1.0");
    const observed = broken.map((d) =>
      d.name === "mlflow"
        ? {
            ...settledAs(d, "Failed"),
            status: { phase: "Failed" as const, observedGeneration: 1, message: "boom" },
          }
        : settledAs(d, "Ready"),
    );
    const plan = planPlatform(
      observe({ desired: fixed, observed, previousPhase: "Failed", specChanged: true }),
    );
    expect(plan.apply.flat().map((d) => d.name)).toEqual(["mlflow"]);
    expect(plan.phase).not.toBe("Failed");
  });

  it("is Degraded when a component of a running platform fails or becomes unready on its own", () => {
    const running = desired("0.1.0").map((d) => settledAs(d, "Ready"));
    const failed = running.map((o) =>
      o.spec.component === "registry"
        ? { ...o, status: { ...o.status, phase: "Failed" as const, message: "boom" } }
        : o,
    );
    const plan = planPlatform(
      observe({
        desired: desired("0.1.0"),
        observed: failed,
        previousPhase: "Running",
        runningVersion: "0.1.0",
      }),
    );
    expect(plan.phase).toBe("Degraded");
    expect(plan.message).toBe("registry: boom");
    const unready = running.map((o) =>
      o.spec.component === "web" ? { ...o, status: { ...o.status, phase: "Deploying" as const } } : o,
    );
    const plan2 = planPlatform(
      observe({
        desired: desired("0.1.0"),
        observed: unready,
        previousPhase: "Running",
        runningVersion: "0.1.0",
      }),
    );
    expect(plan2.phase).toBe("Degraded");
    expect(plan2.message).toBe("web is Deploying");
    expect(plan2.ready).toBe("6/7");
  });

  it("leaves disabled components out, removes them, and lets dependents proceed without them", () => {
    const target = desired("0.1.0", { components: { "object-store": { enabled: false } } });
    expect(target.map((d) => d.name)).not.toContain("object-store");
    expect(target.find((d) => d.name === "mlflow")?.spec.dependencies).toEqual(["postgres"]);
    const old = desired("0.1.0").map((d) => settledAs(d, "Ready"));
    const plan = planPlatform(
      observe({ desired: target, observed: old, previousPhase: "Running", runningVersion: "0.1.0" }),
    );
    expect(plan.delete).toEqual(["slipway-object-store"]);
    expect(drive([], target).steps[0]).toEqual(["postgres", "registry", "workflow-engine"]);
  });

  it("deletes in reverse dependency order and finishes when nothing is left", () => {
    let observed = desired("0.1.0").map((d) => settledAs(d, "Ready"));
    const steps: string[][] = [];
    for (let i = 0; i < 5; i++) {
      const plan = planPlatform(observe({ desired: desired("0.1.0"), observed, deleting: true }));
      expect(plan.phase).toBe("Deleting");
      if (plan.finished) break;
      steps.push(plan.delete.map((name) => name.replace("slipway-", "")).sort());
      observed = observed.filter((o) => !plan.delete.includes(o.objectName));
    }
    expect(steps).toEqual([
      ["mlflow", "web", "workflow-engine"],
      ["api-server"],
      ["object-store", "postgres", "registry"],
    ]);
  });
});
