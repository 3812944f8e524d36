import { describe, expect, it } from "vitest";
import { layers, layout } from "../../../web/src/graph/layout.ts";

const diamond = [
  { name: "d", dependsOn: ["b", "c"] },
  { name: "c", dependsOn: ["a"] },
  { name: "b", dependsOn: ["a"] },
  { name: "a" },
];

describe("the step graph's layered layout", () => {
  it("puts a diamond in three layers, the parallel steps one above the other, with one edge per dependency", () => {
    const placed = layout(diamond);
    const at = Object.fromEntries(placed.nodes.map((node) => [node.name, node]));
    expect(Object.fromEntries(placed.nodes.map((node) => [node.name, node.layer]))).toEqual({
      a: 0,
      b: 1,
      c: 1,
      d: 2,
    });
    expect(at.b?.x).toBe(at.c?.x);
    expect(at.b?.y).toBeLessThan(at.c?.y ?? 0);
    expect(placed.edges.map((edge) => `${edge.from}->${edge.to}`).sort()).toEqual([
      "a->b",
      "a->c",
      "b->d",
      "c->d",
    ]);
    // every edge starts at its source's right side and ends at its target's left side
    for (const edge of placed.edges) {
      const [start, end] = [at[edge.from], at[edge.to]];
      expect(edge.path.startsWith(`M${(start?.x ?? 0) + 160},`)).toBe(true);
      expect(edge.path.includes(` ${end?.x},`)).toBe(true);
    }
    expect(placed.width).toBeGreaterThan((at.d?.x ?? 0) + 159);
  });

  it("a step's layer follows its deepest dependency; unknown dependencies and cycles do not loop", () => {
    expect(
      layers([{ name: "x", dependsOn: ["y", "ghost"] }, { name: "y", dependsOn: ["z"] }, { name: "z" }]),
    ).toEqual(
      new Map([
        ["z", 0],
        ["y", 1],
        ["x", 2],
      ]),
    );
    const cyclic = layers([
      { name: "p", dependsOn: ["q"] },
      { name: "q", dependsOn: ["p"] },
    ]);
    expect([...cyclic.keys()].sort()).toEqual(["p", "q"]);
  });

  it("orders a layer by where its dependencies sit (fewer crossings)", () => {
    const placed = layout([
      { name: "a" },
      { name: "b" },
      { name: "from-b", dependsOn: ["b"] },
      { name: "aa-from-a", dependsOn: ["a"] },
    ]);
    const rows = Object.fromEntries(placed.nodes.map((node) => [node.name, node.row]));
    expect(rows).toMatchObject({ a: 0, b: 1, "aa-from-a": 0, "from-b": 1 });
  });
});
