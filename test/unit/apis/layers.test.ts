import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../../src/dev/paths.ts";

/** The src/ areas each file under `area` imports (static and dynamic imports). */
async function importedAreas(area: string): Promise<Map<string, string[]>> {
  const dir = join(packageRoot, "src", area);
  const files = (await readdir(dir, { recursive: true })).filter((file) => file.endsWith(".ts"));
  const imports = new Map<string, string[]>();
  for (const file of files) {
    const text = await readFile(join(dir, file), "utf8");
    const depth = file.split("/").length;
    const up = `${"../".repeat(depth)}`;
    const areas = [...text.matchAll(/(?:from |import\()"([^"]+)"/g)]
      .map((match) => match[1] ?? "")
      .filter((path) => path.startsWith(up))
      .map((path) => path.slice(up.length).split("/")[0] ?? "");
    imports.set(file, areas);
  }
  return imports;
}

describe("layers: the bundle is made from the operator and the platform, never the other way", () => {
  it("no module of src/platform or src/operator imports src/bundle", async () => {
    for (const area of ["platform", "operator"]) {
      for (const [file, areas] of await importedAreas(area)) {
        expect(areas, `src/${area}/${file}`).not.toContain("bundle");
      }
    }
  });
});
