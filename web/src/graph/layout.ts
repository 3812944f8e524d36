/**
 * A layered layout of a step graph (pure): a step's layer is one more than its deepest dependency's,
 * so every edge points to a later layer; within a layer steps are ordered by the mean position of
 * their dependencies (fewer crossings), then by name.
 */

export interface StepNode {
  name: string;
  dependsOn?: string[];
}

export interface PlacedNode {
  name: string;
  layer: number;
  /** Position within the layer, from 0. */
  row: number;
  x: number;
  y: number;
}

export interface PlacedEdge {
  from: string;
  to: string;
  /** An SVG path from the right side of `from` to the left side of `to`. */
  path: string;
}

export interface Layout {
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  width: number;
  height: number;
}

export const nodeSize = { width: 160, height: 44 };
const gap = { x: 64, y: 20 };
const margin = 8;

/** Each step's layer; a dependency on an unknown step is ignored, a cycle is cut where it closes. */
export function layers(steps: StepNode[]): Map<string, number> {
  const byName = new Map(steps.map((step) => [step.name, step]));
  const layer = new Map<string, number>();
  const visiting = new Set<string>();
  const visit = (name: string): number => {
    const known = layer.get(name);
    if (known !== undefined) return known;
    if (visiting.has(name)) return -1;
    visiting.add(name);
    const deps = (byName.get(name)?.dependsOn ?? []).filter((dep) => byName.has(dep));
    const value = deps.reduce((deepest, dep) => Math.max(deepest, visit(dep) + 1), 0);
    visiting.delete(name);
    layer.set(name, value);
    return value;
  };
  for (const step of steps) visit(step.name);
  return layer;
}

function orderLayers(steps: StepNode[], layerOf: Map<string, number>): string[][] {
  const count = Math.max(0, ...layerOf.values()) + 1;
  const grouped: string[][] = Array.from({ length: count }, () => []);
  for (const step of steps) grouped[layerOf.get(step.name) ?? 0]?.push(step.name);
  const rowOf = new Map<string, number>();
  const deps = new Map(steps.map((step) => [step.name, step.dependsOn ?? []]));
  for (const group of grouped) {
    const weight = (name: string) => {
      const placed = (deps.get(name) ?? []).map((dep) => rowOf.get(dep)).filter((row) => row !== undefined);
      return placed.length ? placed.reduce((sum, row) => sum + row, 0) / placed.length : 0;
    };
    group.sort((a, b) => weight(a) - weight(b) || a.localeCompare(b));
    for (const [row, name] of group.entries()) rowOf.set(name, row);
  }
  return grouped;
}

export function layout(steps: StepNode[]): Layout {
  const layerOf = layers(steps);
  const grouped = orderLayers(steps, layerOf);
  const tallest = Math.max(1, ...grouped.map((group) => group.length));
  const height = tallest * nodeSize.height + (tallest - 1) * gap.y + 2 * margin;
  const nodes: PlacedNode[] = grouped.flatMap((group, layer) => {
    // a layer is centred on the tallest one
    const offset = ((tallest - group.length) * (nodeSize.height + gap.y)) / 2;
    return group.map((name, row) => ({
      name,
      layer,
      row,
      x: margin + layer * (nodeSize.width + gap.x),
      y: margin + offset + row * (nodeSize.height + gap.y),
    }));
  });
  const at = new Map(nodes.map((node) => [node.name, node]));
  const edges: PlacedEdge[] = steps.flatMap((step) =>
    (step.dependsOn ?? []).flatMap((dep) => {
      const from = at.get(dep);
      const to = at.get(step.name);
      if (!from || !to) return [];
      const x1 = from.x + nodeSize.width;
      const y1 = from.y + nodeSize.height / 2;
      const x2 = to.x;
      const y2 = to.y + nodeSize.height / 2;
      const bend = (x2 - x1) / 2;
      return [
        { from: dep, to: step.name, path: `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}` },
      ];
    }),
  );
  const width = margin * 2 + grouped.length * nodeSize.width + (grouped.length - 1) * gap.x;
  return { nodes, edges, width, height };
}
