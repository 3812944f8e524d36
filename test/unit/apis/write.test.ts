import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { parse } from "yaml";
import { chartDir } from "../../../src/bundle/helm.ts";
import { releaseOptions } from "../../../src/bundle/release.ts";
import { bundlePath, valuesPath } from "../../../tools/gen/files.ts";
import { writeGenerated } from "../../../tools/gen/write.ts";

async function tempRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "slipway-gen-"));
  onTestFinished(() => rm(root, { recursive: true, force: true }));
  return root;
}

describe("writeGenerated", () => {
  it("keeps values.yaml keys and templates it does not own, sets its own, and removes CRDs of gone kinds", async () => {
    const root = await tempRoot();
    await mkdir(join(root, chartDir, "templates"), { recursive: true });
    await mkdir(join(root, "deploy/crds"), { recursive: true });
    await writeFile(join(root, valuesPath), "replicas: 5\n# Backends.\nproviders: {}\n");
    await writeFile(
      join(root, chartDir, "templates/providers.yaml"),
      "{{- range .Values.providers }}{{ end }}\n",
    );
    await writeFile(
      join(root, "deploy/crds/gones.test.slipway.dev.yaml"),
      "kind: CustomResourceDefinition\n",
    );

    const report = await writeGenerated(root, releaseOptions());

    const values = await readFile(join(root, valuesPath), "utf8");
    expect(values).toContain("# Backends.");
    expect(parse(values)).toMatchObject({ providers: {}, replicas: 1, logLevel: "info" });
    expect(await readFile(join(root, chartDir, "templates/providers.yaml"), "utf8")).toContain(
      ".Values.providers",
    );
    await expect(readFile(join(root, "deploy/crds/gones.test.slipway.dev.yaml"))).rejects.toThrow();
    expect(report.changed).toContain("deploy/crds/gones.test.slipway.dev.yaml");
    expect(report.changed).toContain(bundlePath);

    expect((await writeGenerated(root, releaseOptions())).changed).toEqual([]);
  });
});
