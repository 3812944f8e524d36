/** The dependency graph of a platform's components (pure). */

export interface Node {
  name: string;
  dependencies: readonly string[];
}

/** Names of the nodes that depend directly on `name`. */
export function dependentsOf(nodes: readonly Node[], name: string): string[] {
  return nodes.filter((node) => node.dependencies.includes(name)).map((node) => node.name);
}

/**
 * Each node's level: 0 without dependencies, else one more than its deepest dependency. Dependencies
 * outside `nodes` (external or disabled services) are ignored. Throws on a cycle, naming it.
 */
export function levels(nodes: readonly Node[]): Map<string, number> {
  const byName = new Map(nodes.map((node) => [node.name, node]));
  const result = new Map<string, number>();
  const visiting: string[] = [];
  const visit = (name: string): number => {
    const known = result.get(name);
    if (known !== undefined) return known;
    if (visiting.includes(name)) {
      throw new Error(`dependency cycle: ${[...visiting.slice(visiting.indexOf(name)), name].join(" -> ")}`);
    }
    visiting.push(name);
    const node = byName.get(name);
    const deps = (node?.dependencies ?? []).filter((dep) => byName.has(dep));
    const level = deps.length === 0 ? 0 : 1 + Math.max(...deps.map(visit));
    visiting.pop();
    result.set(name, level);
    return level;
  };
  for (const node of nodes) visit(node.name);
  return result;
}

/** Node names grouped by level, lowest first: each group can proceed in parallel once the previous is done. */
export function waves(nodes: readonly Node[]): string[][] {
  const byLevel: string[][] = [];
  for (const [name, level] of levels(nodes)) {
    byLevel[level] = [...(byLevel[level] ?? []), name];
  }
  return byLevel;
}

/** The duration of the longest dependency chain when each node takes `duration(name)` (the floor of a parallel rollout). */
export function criticalPath(nodes: readonly Node[], duration: (name: string) => number): number {
  const byName = new Map(nodes.map((node) => [node.name, node]));
  const finish = new Map<string, number>();
  const order = [...levels(nodes)].sort((a, b) => a[1] - b[1]).map(([name]) => name);
  for (const name of order) {
    const deps = (byName.get(name)?.dependencies ?? []).filter((dep) => finish.has(dep));
    const start = Math.max(0, ...deps.map((dep) => finish.get(dep) ?? 0));
    finish.set(name, start + duration(name));
  }
  return Math.max(0, ...finish.values());
}
