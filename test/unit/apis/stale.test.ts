import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { bundleFor, defaultNamespace } from "../../../src/bundle/bundle.ts";
import { chartDir, ownValues } from "../../../src/bundle/helm.ts";
import { releaseOptions } from "../../../src/bundle/release.ts";
import { bundlePath, crdDir, generatedFiles, valuesFile, valuesPath } from "../../../tools/gen/files.ts";

const root = join(import.meta.dirname, "../../..");
const stale = "deploy/ is stale: run npm run generate";
const read = (path: string) => readFile(join(root, path), "utf8").catch(() => "<missing>");

describe("deploy/", () => {
  const options = releaseOptions();
  const files = generatedFiles(options);

  it("matches what the kinds and controllers generate", async () => {
    for (const [path, content] of files) {
      expect(await read(path), `${stale} (${path})`).toBe(content);
    }
  });

  it("has no CRD of a kind that no longer exists", async () => {
    for (const dir of [crdDir, `${chartDir}/crds`]) {
      for (const name of await readdir(join(root, dir))) {
        expect(files.has(`${dir}/${name}`), `${stale} (${dir}/${name} is not generated)`).toBe(true);
      }
    }
  });

  it("has the generated values in the Helm chart's values.yaml", async () => {
    const committed = await read(valuesPath);
    expect(ownValues(committed), `${stale} (${valuesPath})`).toEqual(
      ownValues(valuesFile(committed, options)),
    );
  });

  it("deploy/slipway.yaml parses back into the bundle's objects, placed in the default namespace", async () => {
    const documents = parseAllDocuments(await read(bundlePath)).map((d) => d.toJS());
    expect(documents).toEqual(bundleFor(defaultNamespace, options));
  });
});
