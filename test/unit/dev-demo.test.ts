import { describe, expect, it } from "vitest";
import { demoClosing, demoReleases } from "../../src/dev/demo.ts";
import { devBuilds, devOperatorBuildsConfig } from "../../src/dev/dev-builds.ts";
import { realNodePlacement } from "../../src/dev/real-node/objects.ts";
import { compareVersions, releases } from "../../src/platform/catalog.ts";

describe("the demo", () => {
  it("installs the catalog's oldest release, so there is a newer one to update to", () => {
    const { install, updateTo } = demoReleases();
    for (const release of releases) expect(compareVersions(install, release.version)).toBeLessThanOrEqual(0);
    expect(compareVersions(updateTo, install)).toBeGreaterThan(0);
  });

  it("ends with the UI, the token and how to update from the CLI and from the UI's Update page", () => {
    const { install, updateTo } = demoReleases();
    const text = demoClosing("http://127.0.0.1:4321/", "TOKEN", "/dev/kubeconfig").join("\n");
    expect(text).toContain("UI: http://127.0.0.1:4321/");
    expect(text).toContain("TOKEN");
    expect(text).toContain(`release ${install} is installed`);
    expect(text).toContain(`bin/slipway update --version ${updateTo}`);
    expect(text).toContain("Update page: http://127.0.0.1:4321/update");
  });

  it("on the real node ends with the UI, MLflow's address, the image built and the run's outcome", () => {
    const real = {
      release: "0.2.0",
      mlflow: "http://10.233.0.7:5000/",
      image: "slipway-registry.slipway.svc:5000/demo-model:v1@sha256:ab",
      run: "Succeeded, its model at s3://slipway/argo/x/model.tgz",
    };
    const text = demoClosing("http://127.0.0.1:4321/", "TOKEN", "/dev/kubeconfig", real).join("\n");
    expect(text).toContain("UI: http://127.0.0.1:4321/");
    expect(text).toContain("MLflow: http://10.233.0.7:5000/");
    expect(text).toContain(
      "image built with buildah (a Job on the real node) into the platform's registry: slipway-registry.slipway.svc:5000/demo-model:v1@sha256:ab",
    );
    expect(text).toContain("pipeline run demo-1: Succeeded, its model at s3://slipway/argo/x/model.tgz");
    expect(text).toContain("release 0.2.0 runs on the real node");
    expect(text).not.toContain("bin/slipway update");
    // the pages that show what the demo made, and the next step for a second team
    for (const page of ["builds/slipway/demo-model", "pipelines/slipway/demo", "runs/slipway/demo-1"])
      expect(text).toContain(`http://127.0.0.1:4321/${page}`);
    expect(text).toContain("bin/slipway dev team team-b");
  });
});

describe("the dev operator's builds configuration", () => {
  const builds = devBuilds("/dev-dir", { registry: 5001, s3: 5002, s3Console: 5003 });

  it("kwok only: buildah on this machine, dev's registry and S3", () => {
    const config = devOperatorBuildsConfig("/dev-dir", builds, false);
    expect(config.backend).toBe("local");
    expect(config.registry.url).toBe("127.0.0.1:5001");
    expect(config.local.storageRoot).toBe("/dev-dir/builds/buildah");
  });

  it("with the real node: buildah Jobs placed on it (a platform's registry resolves only in pods)", () => {
    const config = devOperatorBuildsConfig("/dev-dir", builds, true);
    expect(config.backend).toBe("buildah");
    expect(config.kaniko.nodeSelector).toEqual(realNodePlacement().nodeSelector);
    expect(config.kaniko.tolerations).toEqual(realNodePlacement().tolerations);
    expect(config.registry.url).toBe("127.0.0.1:5001");
  });
});
