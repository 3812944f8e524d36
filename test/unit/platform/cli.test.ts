import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDuration } from "../../../src/cli/platform/context.ts";
import { platformSpecFromFlags } from "../../../src/cli/platform/install.ts";
import { patchSpecFromFlags, setExpression } from "../../../src/cli/platform/lifecycle.ts";
import { placeObjects, readManifest } from "../../../src/cli/platform/manifest.ts";
import { updateVersion } from "../../../src/cli/platform/versions.ts";
import { UserError } from "../../../src/cli/run.ts";
import { packageRoot } from "../../../src/dev/paths.ts";
import { deepMerge } from "../../../src/lib/merge.ts";
import { releaseCatalog } from "../../../src/platform/version-change.ts";
import { defaultGlobals } from "./cli-globals.ts";

/** A Platform running `version` (status), asked to run `requested` (spec). */
const running = (version: string, requested = version) => ({
  spec: { version: requested },
  status: { version },
});

const globals = defaultGlobals;

describe("CLI decisions", () => {
  it("reads --set paths, with \\. for a dot inside a key and YAML values", () => {
    expect(setExpression("components.web.replicas=2")).toEqual({ components: { web: { replicas: 2 } } });
    expect(setExpression("components.web.podAnnotations.example\\.com/team=ml")).toEqual({
      components: { web: { podAnnotations: { "example.com/team": "ml" } } },
    });
    expect(() => setExpression("=3")).toThrow(UserError);
    expect(() => setExpression("no-value")).toThrow("expected path=value");
  });

  it("merges --set values object by object; an array replaces the one before it", () => {
    expect(deepMerge({ args: ["x", "y"], env: { A: "1" } }, { args: ["z"], env: { B: "2" } })).toEqual({
      args: ["z"],
      env: { A: "1", B: "2" },
    });
    expect(patchSpecFromFlags({ set: ["components.web.args=[x, y]", "components.web.args=[z]"] })).toEqual({
      components: { web: { args: ["z"] } },
    });
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
    expect(updateVersion(running("0.0.9"), "v0.1.0", false)).toBe("0.1.0");
    expect(() => updateVersion(running("0.1.0"), "0.0.9", false)).toThrow(
      "--version 0.0.9 is older than the running 0.1.0: a downgrade needs --force",
    );
    expect(updateVersion(running("0.1.0"), "0.0.9", true)).toBe("0.0.9");
    expect(() => updateVersion(running("0.1.0"), "7.0.0", true)).toThrow(
      "--version 7.0.0 is not a known Slipway release (known: 0.0.9, 0.1.0, 0.2.0)",
    );
  });

  it("judges a downgrade from the version asked for mid-update, as the REST API does", () => {
    // 0.1.0 asked for while 0.0.9 still runs: going back to 0.0.9 is a downgrade
    expect(() => updateVersion(running("0.0.9", "0.1.0"), "0.0.9", false)).toThrow(
      "--version 0.0.9 is older than the requested 0.1.0: a downgrade needs --force",
    );
    // the case, on a catalog that has 0.2.0
    const catalog = { ...releaseCatalog, versions: ["0.0.9", "0.1.0", "0.2.0"], find: (v: string) => v };
    expect(() => updateVersion(running("0.0.9", "0.2.0"), "0.1.0", false, catalog)).toThrow(
      "--version 0.1.0 is older than the requested 0.2.0: a downgrade needs --force",
    );
    expect(updateVersion(running("0.0.9", "0.2.0"), "0.1.0", true, catalog)).toBe("0.1.0");
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

  it("reads --manifest from a file or an https:// URL only (refused before any download)", async () => {
    for (const source of ["http://127.0.0.1:9/slipway.yaml", "HTTP://example.org/x", "ftp://example.org/x"]) {
      await expect(readManifest(source, "n")).rejects.toThrow(
        /^--manifest must be a file or an https:\/\/ URL, not (http|HTTP|ftp):\/\//,
      );
    }
    await expect(readManifest("/nonexistent/slipway.yaml", "n")).rejects.toThrow(
      "--manifest /nonexistent/slipway.yaml: cannot read it",
    );
  });
});
