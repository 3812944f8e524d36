/**
 * docs/builds.md's "Operator configuration" example is a configuration the operator accepts, field
 * for field: a field it documents that the schema does not define fails here, so the page cannot go
 * stale. And such a field is refused by name, never silently dropped.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseBuildsConfig } from "../../../src/builds/config.ts";
import { parseYaml } from "../../../src/lib/yaml.ts";

function documentedExample(): unknown {
  const page = readFileSync(new URL("../../../docs/builds.md", import.meta.url), "utf8");
  const section = page.slice(page.indexOf("## Operator configuration"));
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error("docs/builds.md: no yaml block under Operator configuration");
  return parseYaml(block);
}

describe("the documented builds configuration", () => {
  it("parses, keeping every documented field", () => {
    const config = parseBuildsConfig(documentedExample());
    expect(config.artifacts).toEqual({
      maxBytes: "2Gi",
      maxObjects: 10000,
      fetcherImage: "ghcr.io/slipway-dev/slipway:0.2.0",
    });
    expect(config.tenancy.namespaces["team-a"]).toEqual({ pushSecret: "team-a-push" });
    expect(config.kaniko.cache.repository).toBe("registry.example.com/ml/kaniko-cache");
  });

  it("refuses a field the schema does not define, naming it", () => {
    const outdated = { registry: { url: "registry.example.com" }, kaniko: { fetcherImages: { s3: "x" } } };
    expect(() => parseBuildsConfig(outdated)).toThrow(
      "builds configuration: kaniko.fetcherImages: Unexpected property",
    );
    expect(() => parseBuildsConfig({ registry: { url: "r.example.com", insecur: true } })).toThrow(
      "registry.insecur: Unexpected property",
    );
  });
});
