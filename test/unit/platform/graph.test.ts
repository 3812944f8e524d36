import { describe, expect, it } from "vitest";
import { catalog, compareVersions, findRelease, releases } from "../../../src/platform/catalog.ts";
import { criticalPath, dependentsOf, levels, waves } from "../../../src/platform/graph.ts";

const nodes = catalog.map((c) => ({ name: c.name, dependencies: c.dependsOn }));

describe("dependency graph", () => {
  it("groups the catalog into waves that only depend on earlier waves", () => {
    expect(waves(nodes)).toEqual([
      ["postgres", "object-store", "registry"],
      ["mlflow", "workflow-engine", "api-server"],
      ["web"],
    ]);
  });

  it("names the dependents of a component", () => {
    expect(dependentsOf(nodes, "object-store").sort()).toEqual(["api-server", "mlflow", "workflow-engine"]);
    expect(dependentsOf(nodes, "web")).toEqual([]);
  });

  it("ignores dependencies outside the graph (disabled, external services)", () => {
    const withoutPostgres = nodes.filter((n) => n.name !== "postgres");
    expect(levels(withoutPostgres).get("mlflow")).toBe(1);
    expect(levels([{ name: "mlflow", dependencies: ["postgres"] }]).get("mlflow")).toBe(0);
  });

  it("refuses a cycle, naming it", () => {
    expect(() =>
      levels([
        { name: "a", dependencies: ["b"] },
        { name: "b", dependencies: ["a"] },
      ]),
    ).toThrow("dependency cycle: a -> b -> a");
  });

  it("measures the critical path: the longest chain of durations", () => {
    // postgres(3) -> api-server(1) -> web(1) = 5; object-store(1) -> mlflow(1) = 2
    const duration = (name: string) => (name === "postgres" ? 3 : 1);
    expect(criticalPath(nodes, duration)).toBe(5);
    expect(criticalPath([], duration)).toBe(0);
  });
});

describe("release catalog", () => {
  it("knows at least two releases, each pinning an exact image for every component", () => {
    expect(releases.length).toBeGreaterThanOrEqual(2);
    for (const release of releases) {
      for (const component of catalog) {
        const image = release.images[component.name];
        expect(image, `${release.version} ${component.name}`).toMatch(
          /^[a-z0-9.-]+\/[a-z0-9./_-]+:[A-Za-z0-9._-]+$/,
        );
        expect(image).not.toMatch(/:latest$/);
      }
    }
  });

  it("finds releases with or without a leading v and orders versions numerically", () => {
    expect(findRelease("v0.1.0")?.version).toBe("0.1.0");
    expect(findRelease("9.9.9")).toBeUndefined();
    expect(compareVersions("0.10.0", "0.9.0")).toBe(1);
    expect(compareVersions("0.1.0", "v0.1.0")).toBe(0);
    expect(compareVersions("1.0.0-rc.1", "1.0.0")).toBe(-1);
  });
});
