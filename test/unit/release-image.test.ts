/**
 * What the release image holds, read from the Dockerfile, .dockerignore and tsconfig.build.json (the
 * image's dist/ is `tsc -p tsconfig.build.json` of src): exactly the expected COPY sources, a build
 * context of only those, and no test fake or harness (test/support/fakes) among the files it copies.
 * test/integration/release/release-build.test.ts lists the compiled dist/ itself.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { repositoryRoot } from "../support/import-graph.ts";

const read = (file: string) => readFileSync(join(repositoryRoot, file), "utf8");

interface Copy {
  /** The stage or image it copies from; undefined: the build context. */
  from?: string;
  sources: string[];
  destination: string;
}

/** The COPY instructions of each stage, in order (a stage: from one FROM to the next). */
function stageCopies(dockerfile: string): Copy[][] {
  const stages: Copy[][] = [];
  for (const line of dockerfile.split("\n").map((text) => text.trim())) {
    if (/^FROM\s/i.test(line)) stages.push([]);
    if (!/^COPY\s/i.test(line)) continue;
    const words = line.split(/\s+/).slice(1);
    const from = words.find((word) => word.startsWith("--from="))?.slice("--from=".length);
    const paths = words.filter((word) => !word.startsWith("--"));
    const destination = paths.pop() ?? "";
    stages.at(-1)?.push({ ...(from ? { from } : {}), sources: paths, destination });
  }
  return stages;
}

/** .dockerignore's rules: what it lets into the build context (`!path`) and what it keeps out. */
function dockerignore(text: string): { allowed: string[]; excluded: string[] } {
  const rules = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"));
  return {
    allowed: rules.filter((rule) => rule.startsWith("!")).map((rule) => rule.slice(1)),
    excluded: rules.filter((rule) => !rule.startsWith("!")),
  };
}

/** Every file under `folder` (repository-relative), leaving out the subfolders `skip` names. */
function filesUnder(folder: string, skip: readonly string[] = []): string[] {
  return readdirSync(join(repositoryRoot, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath.slice(repositoryRoot.length), entry.name))
    .filter((file) => !skip.some((folder) => file.startsWith(`${folder}/`)));
}

const dockerfile = read("Dockerfile");
const contextRules = dockerignore(read(".dockerignore"));

describe("the release image", () => {
  it("copies into its final stage exactly node_modules, package.json, dist, versions.env, deploy and web/dist", () => {
    expect(stageCopies(dockerfile).at(-1)).toEqual([
      { from: "deps-output", sources: ["/app/node_modules"], destination: "./node_modules" },
      { sources: ["package.json"], destination: "./" },
      { from: "dist-output", sources: ["/app/dist"], destination: "./dist" },
      { sources: ["tools/kube/versions.env"], destination: "./tools/kube/versions.env" },
      { sources: ["deploy"], destination: "./deploy" },
      { from: "web-output", sources: ["/app/web/dist"], destination: "./web/dist" },
    ]);
  });

  it("compiles dist from src alone, and runs it from the entry point dist/cli/main.js", () => {
    const build = JSON.parse(read("tsconfig.build.json"));
    expect(build.include).toEqual(["src"]);
    expect(build.compilerOptions).toMatchObject({ rootDir: "src", outDir: "dist" });
    const distStage = stageCopies(dockerfile).find((copies) =>
      copies.some((copy) => copy.sources.includes("tsconfig.build.json")),
    );
    expect(distStage?.flatMap((copy) => copy.sources)).toEqual([
      "package.json",
      "package-lock.json",
      "tsconfig.json",
      "tsconfig.build.json",
      "src",
    ]);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["\/nodejs\/bin\/node", "dist\/cli\/main\.js"\]$/m);
  });

  it("has a build context of exactly what its stages copy from it", () => {
    const fromContext = stageCopies(dockerfile)
      .flat()
      .filter((copy) => !copy.from)
      .flatMap((copy) => copy.sources);
    expect([...new Set(fromContext)].sort()).toEqual([...contextRules.allowed].sort());
    expect(contextRules.excluded).toEqual(["**", "web/dist", "web/node_modules"]);
  });

  it("holds no test fake or harness: no file of its build context (src, web, deploy, …) bears a fake's name", () => {
    const fakes = readdirSync(join(repositoryRoot, "test/support/fakes"));
    expect(fakes).toEqual(
      expect.arrayContaining([
        "build-server-children.ts",
        "kfp-server.py",
        "kfp-server.ts",
        "pipelines-operator.ts",
        "push-image.ts",
        "vertex-server.ts",
      ]),
    );
    const keptOut = contextRules.excluded.filter((rule) => rule !== "**");
    const copied = contextRules.allowed.flatMap((path) =>
      statSync(join(repositoryRoot, path)).isDirectory() ? filesUnder(path, keptOut) : [path],
    );
    expect(copied).toContain("src/cli/main.ts");
    expect(copied.filter((file) => fakes.includes(basename(file)))).toEqual([]);
  });

  it("reads a Dockerfile's stages and a .dockerignore as written", () => {
    const stages = stageCopies(
      "FROM a AS one\nCOPY x y ./\nFROM b\nCOPY --from=one /app/dist ./dist\ncopy z /z\n",
    );
    expect(stages).toEqual([
      [{ sources: ["x", "y"], destination: "./" }],
      [
        { from: "one", sources: ["/app/dist"], destination: "./dist" },
        { sources: ["z"], destination: "/z" },
      ],
    ]);
    expect(dockerignore("# note\n**\n!src\n\nweb/dist\n")).toEqual({
      allowed: ["src"],
      excluded: ["**", "web/dist"],
    });
  });
});
