/**
 * The import rules between the tree's parts, read from the import statements of src/** and bench/**:
 * - production code (src) imports no test code, and only src/dev and src/cli import src/dev;
 * - benchmarks import no test code but the fakes and harness of test/support/fakes (the tests' and the
 *   benchmarks' backends and in-process operator), and those import no other test code;
 * - only src/server and src/cli import src/server (an area's REST routes live in src/server/<area>);
 * - src/lib (small shared utilities) imports no other part of src;
 * - the top-level folders of src import each other without cycles;
 * - nothing in src is used only by tests or benchmarks: every src file is reachable from what
 *   production starts (test/support/import-graph.ts `productionEntryPoints`);
 * - src calls the Kubernetes API with one client, src/kube/rest.ts (the operator's, the CLI's, the
 *   server's as the caller, `slipway dev`'s): of the Kubernetes library it imports types, the
 *   kubeconfig loader and, in src/apis/wire.ts, the converter to the library's models only.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type ImportEdge,
  imageEntryPoint,
  importsOf,
  kubernetesLibraryValues,
  productionEntryPoints,
  productionSrcFiles,
  programsNamedIn,
  reachable,
  repositoryRoot,
  sourceFiles,
} from "../support/import-graph.ts";

/**
 * Edges that break a rule today and are removed by work in flight on other branches; the lead
 * deletes each entry when that work merges (an entry that matches nothing fails the test).
 */
const pendingMoves: { edge: string; move: string }[] = [];

/** Test code benchmarks may import: it serves both, and imports no other test code. */
const sharedWithBenches = "test/support/fakes/";

const edges = ["src", "bench", sharedWithBenches].flatMap(sourceFiles).flatMap(importsOf);
const show = (edge: ImportEdge) => `${edge.from} → ${edge.to}`;
const pending = (edge: ImportEdge) => pendingMoves.some((entry) => matches(entry.edge, edge));
function matches(pattern: string, edge: ImportEdge): boolean {
  const [from = "", to = ""] = pattern.split(" → ");
  return edge.from === from && (to.endsWith("/") ? edge.to.startsWith(to) : edge.to === to);
}
/** The top-level folder of a src path (src/kube/x.ts → kube), undefined outside src. */
const area = (path: string) => (path.startsWith("src/") ? path.split("/")[1] : undefined);

/** A benchmark's or a fake's import of a fake. */
const importsSharedFake = (edge: ImportEdge) =>
  edge.to.startsWith(sharedWithBenches) &&
  (edge.from.startsWith("bench/") || edge.from.startsWith(sharedWithBenches));

function ruleBreaks(edge: ImportEdge): string | undefined {
  const [from, to] = [area(edge.from), area(edge.to)];
  if (edge.to.startsWith("test/") && !importsSharedFake(edge)) return "imports test code";
  if (from && to === "dev" && from !== "dev" && from !== "cli") return "production code imports src/dev";
  if (from && to === "server" && from !== "server" && from !== "cli") return "an area imports src/server";
  if (from === "lib" && to && to !== "lib") return "src/lib imports another part of src";
  return undefined;
}

/** Every cycle between src's top-level folders, each as the folders and one import per step. */
function folderCycles(imports: readonly ImportEdge[]): string[] {
  const next = new Map<string, Map<string, ImportEdge>>();
  for (const edge of imports) {
    const [from, to] = [area(edge.from), area(edge.to)];
    if (!from || !to || from === to) continue;
    if (!next.has(from)) next.set(from, new Map());
    next.get(from)?.set(to, next.get(from)?.get(to) ?? edge);
  }
  const cycles = new Set<string>();
  const walk = (path: string[]) => {
    // each cycle once: from its alphabetically first folder
    for (const to of next.get(path.at(-1) ?? "")?.keys() ?? []) {
      if (to === path[0]) cycles.add(describeCycle([...path, to], next));
      else if (!path.includes(to) && to > (path[0] ?? "")) walk([...path, to]);
    }
  };
  for (const folder of [...next.keys()].sort()) walk([folder]);
  return [...cycles].sort();
}

function describeCycle(folders: string[], next: Map<string, Map<string, ImportEdge>>): string {
  const steps = folders.slice(1).map((to, i) => next.get(folders[i] ?? "")?.get(to) as ImportEdge);
  return `${folders.join(" → ")} (${steps.map(show).join(", ")})`;
}

describe("layering", () => {
  it("no production module imports test code or src/dev, no bench imports test code but test/support/fakes, no area imports src/server, src/lib imports only src/lib", () => {
    const violations = edges
      .filter((edge) => !pending(edge))
      .flatMap((edge) => {
        const rule = ruleBreaks(edge);
        return rule ? [`${show(edge)}: ${rule}`] : [];
      });
    expect(violations).toEqual([]);
  });

  it("the top-level folders of src have no import cycle", () => {
    expect(folderCycles(edges.filter((edge) => !pending(edge)))).toEqual([]);
  });

  it("every pending-move entry still names an import that exists (delete it once the move merged)", () => {
    const stale = pendingMoves.filter((entry) => !edges.some((edge) => matches(entry.edge, edge)));
    expect(stale).toEqual([]);
  });

  it("production starts the image's entry point, the build Jobs' scripts and dev's helper processes", () => {
    expect(productionEntryPoints()).toEqual(
      expect.arrayContaining([
        "src/cli/main.ts",
        "src/builds/fetch-artifact.ts",
        "src/builds/registry-login.ts",
        "src/dev/service-lookup-preload.ts",
        "src/dev/real-node/tcp-forward.ts",
        "web/src/main.tsx",
      ]),
    );
  });

  it("src calls the Kubernetes API through one client (src/kube/rest.ts): of client-node, types, KubeConfig and the wire converter's loadYaml", () => {
    const allowed = (file: string, name: string) =>
      name === "KubeConfig" || (file === "src/apis/wire.ts" && name === "loadYaml");
    const calls = sourceFiles("src").flatMap((file) =>
      kubernetesLibraryValues(readFileSync(join(repositoryRoot, file), "utf8"))
        .filter((name) => !allowed(file, name))
        .map((name) => `${file}: ${name}`),
    );
    expect(calls).toEqual([]);
    expect(
      kubernetesLibraryValues(
        'import { CoreV1Api, type KubeConfig } from "@kubernetes/client-node";\nimport type { V1Pod } from "@kubernetes/client-node";',
      ),
    ).toEqual(["CoreV1Api"]);
  });

  it("nothing in src is used only by tests or benchmarks: every src file is reachable from what production starts", () => {
    const production = new Set(productionSrcFiles());
    expect(sourceFiles("src").filter((file) => !production.has(file))).toEqual([]);
  });

  it("reads the entry points from the Dockerfile and the program paths src names, and follows imports transitively", () => {
    expect(
      imageEntryPoint('FROM x\nENTRYPOINT ["/nodejs/bin/node", "dist/cli/main.js"]\nCMD ["operator"]\n'),
    ).toBe("src/cli/main.ts");
    expect(() => imageEntryPoint('ENTRYPOINT ["/bin/sh"]')).toThrow("runs no dist/");
    expect(
      programsNamedIn(
        'const c = ["/nodejs/bin/node", "dist/builds/fetch-artifact.js"]; spawn(node, [join(root, "src/dev/x.ts")]);\n' +
          'throw new Error("src/platform/catalog.ts: no release");',
      ),
    ).toEqual(["src/builds/fetch-artifact.ts", "src/dev/x.ts"]);
    const graph: Record<string, string[]> = {
      "src/a.ts": ["src/b.ts"],
      "src/b.ts": ["src/c.ts", "src/a.ts"],
      "src/c.ts": [],
      "src/only-tests.ts": ["src/c.ts"],
    };
    const imports = (file: string) => (graph[file] ?? []).map((to) => ({ from: file, to }));
    expect([...reachable(["src/a.ts"], imports)].sort()).toEqual(["src/a.ts", "src/b.ts", "src/c.ts"]);
  });

  it("finds a cycle and a forbidden import when there is one", () => {
    const cycle = [
      { from: "src/a/x.ts", to: "src/b/y.ts" },
      { from: "src/b/y.ts", to: "src/c/z.ts" },
      { from: "src/c/z.ts", to: "src/a/w.ts" },
    ];
    expect(folderCycles(cycle)).toEqual([
      "a → b → c → a (src/a/x.ts → src/b/y.ts, src/b/y.ts → src/c/z.ts, src/c/z.ts → src/a/w.ts)",
    ]);
    expect(ruleBreaks({ from: "src/kube/a.ts", to: "src/dev/paths.ts" })).toBe(
      "production code imports src/dev",
    );
    expect(ruleBreaks({ from: "bench/a.ts", to: "test/support/x.ts" })).toBe("imports test code");
    expect(ruleBreaks({ from: "bench/a.ts", to: "test/support/fakes/x.ts" })).toBeUndefined();
    expect(ruleBreaks({ from: "test/support/fakes/x.ts", to: "test/support/fakes/y.ts" })).toBeUndefined();
    expect(ruleBreaks({ from: "test/support/fakes/x.ts", to: "test/support/cluster.ts" })).toBe(
      "imports test code",
    );
    expect(ruleBreaks({ from: "src/kube/a.ts", to: "test/support/fakes/x.ts" })).toBe("imports test code");
    expect(ruleBreaks({ from: "src/cli/dev.ts", to: "src/dev/cluster.ts" })).toBeUndefined();
    expect(ruleBreaks({ from: "src/lib/yaml.ts", to: "src/kube/types.ts" })).toBe(
      "src/lib imports another part of src",
    );
    expect(ruleBreaks({ from: "src/kube/informer.ts", to: "src/lib/abortable-sleep.ts" })).toBeUndefined();
  });
});
