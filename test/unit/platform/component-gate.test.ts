import { describe, expect, it } from "vitest";
import type { ComponentPhase } from "../../../src/apis/platform/component.ts";
import { gateBlockers, mayPrepare, type SiblingComponent } from "../../../src/platform/component-gate.ts";

function sibling(
  component: string,
  dependencies: string[],
  phase: ComponentPhase,
  options: {
    version?: string;
    stopped?: boolean;
    generation?: number;
    observed?: number;
    deleting?: boolean;
  } = {},
): SiblingComponent {
  const generation = options.generation ?? 1;
  return {
    spec: { component, dependencies, version: options.version ?? "0.1.0", stopped: options.stopped ?? false },
    generation,
    deleting: options.deleting ?? false,
    status: { phase, observedGeneration: options.observed ?? generation },
  };
}

const mlflow = {
  component: "mlflow",
  dependencies: ["postgres", "object-store"],
  version: "0.1.0",
  stopped: false,
};

describe("gateBlockers", () => {
  it("lets a component roll once every dependency is Ready at its release and latest spec", () => {
    const ready = [sibling("postgres", [], "Ready"), sibling("object-store", [], "Ready")];
    expect(gateBlockers(mlflow, ready)).toEqual([]);
  });

  it("waits for a dependency that is missing, deploying, failed, stopped or at another release", () => {
    expect(gateBlockers(mlflow, [sibling("postgres", [], "Ready")])).toEqual(["object-store"]);
    for (const blocked of [
      sibling("postgres", [], "Deploying"),
      sibling("postgres", [], "Failed"),
      sibling("postgres", [], "Ready", { version: "0.0.9" }),
      sibling("postgres", [], "Ready", { stopped: true }),
      sibling("postgres", [], "Ready", { deleting: true }),
    ]) {
      expect(gateBlockers(mlflow, [blocked, sibling("object-store", [], "Ready")])).toEqual(["postgres"]);
    }
  });

  it("does not take a Ready status written for an older generation as settled", () => {
    const stale = sibling("postgres", [], "Ready", { generation: 2, observed: 1 });
    expect(gateBlockers(mlflow, [stale, sibling("object-store", [], "Ready")])).toEqual(["postgres"]);
  });

  it("stops a component only when everything depending on it is Stopped", () => {
    const postgres = { component: "postgres", dependencies: [], version: "0.1.0", stopped: true };
    const dependents = [
      sibling("mlflow", ["postgres"], "Stopped", { stopped: true }),
      sibling("api-server", ["postgres"], "Ready", { stopped: true, generation: 3, observed: 2 }),
      sibling("web", ["api-server"], "Ready"),
    ];
    expect(gateBlockers(postgres, dependents)).toEqual(["api-server"]);
    const gone = sibling("api-server", ["postgres"], "Ready", { deleting: true });
    expect(gateBlockers(postgres, [dependents[0] as SiblingComponent, gone])).toEqual([]);
  });

  it("does not let a stale Stopped status of a dependent that is still running count", () => {
    const postgres = { component: "postgres", dependencies: [], version: "0.1.0", stopped: true };
    expect(gateBlockers(postgres, [sibling("mlflow", ["postgres"], "Stopped")])).toEqual(["mlflow"]);
  });
});

describe("mayPrepare", () => {
  it("prepares one level ahead: once every dependency has begun its own rollout", () => {
    const deploying = [sibling("postgres", [], "Deploying"), sibling("object-store", [], "Ready")];
    expect(mayPrepare(mlflow, deploying)).toBe(true);
    // a dependency still waiting itself, not yet reported for its latest spec, or missing
    expect(mayPrepare(mlflow, [sibling("postgres", [], "Pending"), deploying[1] as SiblingComponent])).toBe(
      false,
    );
    const stale = sibling("postgres", [], "Deploying", { generation: 2, observed: 1 });
    expect(mayPrepare(mlflow, [stale, deploying[1] as SiblingComponent])).toBe(false);
    expect(mayPrepare(mlflow, [deploying[1] as SiblingComponent])).toBe(false);
  });

  it("always prepares a component that has no dependencies or is stopping", () => {
    expect(
      mayPrepare({ component: "postgres", dependencies: [], version: "0.1.0", stopped: false }, []),
    ).toBe(true);
    expect(mayPrepare({ ...mlflow, stopped: true }, [])).toBe(true);
  });
});
