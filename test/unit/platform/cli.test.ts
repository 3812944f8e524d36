import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDuration } from "../../../src/cli/platform/context.ts";
import { platformSpecFromFlags } from "../../../src/cli/platform/install.ts";
import { patchSpecFromFlags, setExpression } from "../../../src/cli/platform/lifecycle.ts";
import { placeObjects } from "../../../src/cli/platform/manifest.ts";
import { checkUpdate } from "../../../src/cli/platform/versions.ts";
import { UserError } from "../../../src/cli/run.ts";
import { packageRoot } from "../../../src/dev/paths.ts";

const globals = {
  namespace: "slipway",
  platform: "slipway",
  output: "text" as const,
  timeout: "15m",
  wait: true,
};

describe("CLI decisions", () => {
  it("reads --set paths, with \\. for a dot inside a key and YAML values", () => {
    expect(setExpression("components.web.replicas=2")).toEqual({ components: { web: { replicas: 2 } } });
    expect(setExpression("components.web.podAnnotations.example\\.com/team=ml")).toEqual({
      components: { web: { podAnnotations: { "example.com/team": "ml" } } },
    });
    expect(() => setExpression("=3")).toThrow(UserError);
    expect(() => setExpression("no-value")).toThrow("expected path=value");
  });

  it("builds a patch from --log-level and --set, refusing an unknown level or an empty patch", () => {
    expect(patchSpecFromFlags({ logLevel: "debug", set: ["storage.artifactsSize=60Gi"] })).toEqual({
      logLevel: "DEBUG",
      storage: { artifactsSize: "60Gi" },
    });
    expect(() => patchSpecFromFlags({ logLevel: "LOUD" })).toThrow(
      "--log-level must be one of DEBUG, INFO, WARNING, ERROR, not LOUD",
    );
    expect(() => patchSpecFromFlags({})).toThrow("nothing to patch");
  });

  it("refuses unknown versions and downgrades unless forced", () => {
    expect(checkUpdate("0.0.9", "v0.1.0", false)).toBe("0.1.0");
    expect(() => checkUpdate("0.1.0", "0.0.9", false)).toThrow("a downgrade needs --force");
    expect(checkUpdate("0.1.0", "0.0.9", true)).toBe("0.0.9");
    expect(() => checkUpdate("0.1.0", "7.0.0", true)).toThrow(
      "--version 7.0.0 is not a known Slipway release",
    );
  });

  it("parses durations and names the flag when one is wrong", () => {
    expect(parseDuration("15m")).toBe(900_000);
    expect(parseDuration("90s")).toBe(90_000);
    expect(parseDuration("45")).toBe(45_000);
    expect(() => parseDuration("soon")).toThrow(
      '--timeout must be a duration such as 90s, 15m or 1h, not "soon"',
    );
  });

  it("turns install flags into a Platform spec, checking sizes", () => {
    expect(
      platformSpecFromFlags({
        ...globals,
        version: "0.0.9",
        multiNode: true,
        artifactsSize: "80Gi",
        storageClass: "fast",
      }),
    ).toEqual({
      version: "0.0.9",
      singleNode: false,
      storage: { storageClassName: "fast", artifactsSize: "80Gi" },
    });
    expect(() => platformSpecFromFlags({ ...globals, registrySize: "big" })).toThrow(
      '--registry-size must be a storage quantity such as 50Gi, not "big"',
    );
  });

  it("places a manifest's namespaced objects in the install namespace and leaves cluster-scoped ones", () => {
    const objects = placeObjects(
      "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: op}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\n",
      "team-a",
      "bundle.yaml",
    );
    expect(objects.map((o) => [o.kind, o.metadata?.namespace])).toEqual([
      ["ServiceAccount", "team-a"],
      ["ClusterRole", undefined],
    ]);
  });

  it("places the generated release bundle so that every object of it names the install namespace where it must", () => {
    const objects = placeObjects(
      readFileSync(join(packageRoot, "deploy/slipway.yaml"), "utf8"),
      "team-a",
      "slipway.yaml",
    );
    const binding = objects.find((o) => o.kind === "ClusterRoleBinding") as
      | { subjects: { kind: string; namespace?: string }[] }
      | undefined;
    expect(binding?.subjects.filter((s) => s.kind === "ServiceAccount").map((s) => s.namespace)).toEqual([
      "team-a",
    ]);
    expect(objects.filter((o) => o.kind === "Deployment").map((o) => o.metadata?.namespace)).toEqual([
      "team-a",
    ]);
    expect(() => placeObjects("kind: X\n", "n", "bad.yaml")).toThrow(
      "--manifest bad.yaml: every object needs",
    );
  });
});
