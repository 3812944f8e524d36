/**
 * The repository's TypeScript import graph, read from the sources (relative imports only), and the
 * src files production runs: those reachable from the entry points the release and the CLI start.
 * Used by the layering test (test/unit/layering.test.ts) and the compiled release's file list
 * (test/integration/release/release-build.test.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));

export interface ImportEdge {
  /** Both repository-relative, e.g. src/cli/server.ts → src/dev/paths.ts. */
  from: string;
  to: string;
}

/** The .ts/.tsx files under `folder` (repository-relative), declaration files left out. */
export function sourceFiles(folder: string): string[] {
  return readdirSync(join(repositoryRoot, folder), { recursive: true, encoding: "utf8" })
    .filter((file) => /\.tsx?$/.test(file) && !file.endsWith(".d.ts"))
    .map((file) => join(folder, file));
}

/** Every relative import of `file` (static, type-only, re-exports and dynamic import()). */
export function importsOf(file: string): ImportEdge[] {
  const source = readFileSync(join(repositoryRoot, file), "utf8");
  const { importedFiles } = ts.preProcessFile(source, true, true);
  return importedFiles
    .map((imported) => imported.fileName)
    .filter((name) => name.startsWith("."))
    .map((name) => ({ from: file, to: relative(repositoryRoot, join(repositoryRoot, dirname(file), name)) }));
}

/**
 * The src files a source names as a program to run, in a string literal: `"dist/<path>.js"` (the
 * compiled release: the image's build Jobs run dist/builds/fetch-artifact.js) → src/<path>.ts, and
 * `"src/<path>.ts"` (`slipway dev` runs its helpers with node from the checkout).
 */
export function programsNamedIn(source: string): string[] {
  const compiled = [...source.matchAll(/"dist\/([\w/.-]+)\.js"/g)].map((match) => `src/${match[1]}.ts`);
  const stripped = [...source.matchAll(/"(src\/[\w/.-]+\.ts)"/g)].map((match) => match[1] ?? "");
  return [...compiled, ...stripped];
}

/** The Dockerfile's ENTRYPOINT script (`dist/cli/main.js`) as its source, src/cli/main.ts. */
export function imageEntryPoint(dockerfile: string): string {
  const entrypoint = /^ENTRYPOINT\s+(\[.*\])\s*$/m.exec(dockerfile)?.[1];
  const script = (JSON.parse(entrypoint ?? "[]") as string[]).find((arg) => /^dist\/.+\.js$/.test(arg));
  if (!script) throw new Error("the Dockerfile's ENTRYPOINT runs no dist/….js");
  return script.replace(/^dist\/(.+)\.js$/, "src/$1.ts");
}

/**
 * What production starts: the image's entry point (the CLI: operator, server, install and dev), the
 * programs src names (the build Jobs' scripts, dev's helper processes) and the web UI, which imports
 * the server's view types from src.
 */
export function productionEntryPoints(): string[] {
  const named = sourceFiles("src").flatMap((file) =>
    programsNamedIn(readFileSync(join(repositoryRoot, file), "utf8")),
  );
  const image = imageEntryPoint(readFileSync(join(repositoryRoot, "Dockerfile"), "utf8"));
  return [...new Set([image, ...named, ...sourceFiles("web/src")])].sort();
}

/** The files reachable from `roots` by following `importsOf`. */
export function reachable(roots: readonly string[], imports: (file: string) => readonly ImportEdge[]) {
  const seen = new Set<string>();
  const pending = [...roots];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    pending.push(...imports(file).map((edge) => edge.to));
  }
  return seen;
}

/** The src files production runs (or the web UI imports), sorted. */
export function productionSrcFiles(): string[] {
  const seen = reachable(productionEntryPoints(), importsOf);
  return sourceFiles("src")
    .filter((file) => seen.has(file))
    .sort();
}

/** What `source` imports of the Kubernetes library as values (not `type`): e.g. `CoreV1Api`. Pure. */
export function kubernetesLibraryValues(source: string): string[] {
  const imports = source.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+"@kubernetes\/client-node"/g);
  return [...imports].flatMap(([, wholeType, names = ""]) =>
    wholeType
      ? []
      : names
          .split(",")
          .map((name) => name.trim())
          .filter((name) => name && !name.startsWith("type ")),
  );
}
