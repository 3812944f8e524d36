import { describe, expect, it } from "vitest";
import { findRelease, ownVersion, releases } from "../../../src/platform/catalog.ts";
import { workflowImages } from "../../../src/platform/workflow-images.ts";

const tagOf = (reference: string) => reference.slice(reference.lastIndexOf(":") + 1);

describe("workflowImages", () => {
  it("names an executor of the same version as each release's workflow-controller", () => {
    for (const release of releases) {
      const images = workflowImages(release.version);
      expect(images, release.version).toBeDefined();
      expect(tagOf(images?.executor ?? ""), release.version).toBe(tagOf(release.images["workflow-engine"]));
    }
  });

  it("accepts the v-prefixed spelling and knows no unknown release", () => {
    expect(workflowImages("v0.2.0")?.executor).toBe("quay.io/argoproj/argoexec:v4.0.5");
    expect(workflowImages("9.9.9")).toBeUndefined();
  });

  it("has the build's own version in the catalog, its Slipway image tagged with it", () => {
    expect(findRelease(ownVersion)?.images["api-server"]).toBe(`ghcr.io/slipway-dev/slipway:${ownVersion}`);
  });
});
