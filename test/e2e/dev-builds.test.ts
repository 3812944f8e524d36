import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CustomObjectsApi, KubeConfig } from "@kubernetes/client-node";
import { describe, expect, it, onTestFinished } from "vitest";
import { type ImageBuild, ImageBuildKind } from "../../src/apis/builds/imagebuild.ts";
import { PlatformKind } from "../../src/apis/platform/platform.ts";
import { RegistryClient } from "../../src/builds/registry/client.ts";
import { devS3Credentials } from "../../src/dev/dev-builds.ts";
import type { PlatformServices } from "../../src/dev/platform-services.ts";
import { isRunning } from "../../src/dev/processes.ts";
import { privateDev } from "../support/cli.ts";
import { eventually } from "../support/cluster.ts";
import { applyCrds } from "../support/fakes/apply-crds.ts";

// Its own control plane: `dev up` runs the operator, a registry and MinIO, which `dev down` stops.
describe("slipway dev: image builds (its own control plane)", () => {
  it("up runs a registry and MinIO; an uploaded context is built and pushed there; down stops them", {
    timeout: 600_000,
  }, async () => {
    const { dir, dev } = await privateDev("slipway-dev-builds-");
    onTestFinished(async () => void (await dev("down")));

    const up = await dev("up", "--nodes", "1");
    expect(up.code, up.stderr).toBe(0);
    const services = JSON.parse(
      readFileSync(join(dir, "platform-services.json"), "utf8"),
    ) as PlatformServices;
    expect(services.processes.map((p) => p.name)).toEqual([
      "docker-registry",
      "minio",
      "slipway-operator",
      "slipway-server",
    ]);
    const { registry, s3Endpoint } = services.builds;
    expect((await dev("env")).stdout).toContain(
      `export SLIPWAY_DEV_REGISTRY=${registry}\nexport SLIPWAY_DEV_S3_ENDPOINT=${s3Endpoint}\n`,
    );
    expect((await fetch(`http://${registry}/v2/`)).status).toBe(200);

    const context = await mkdtemp(join(tmpdir(), "slipway-context-"));
    await mkdir(join(context, "config"));
    await writeFile(join(context, "Dockerfile"), "FROM scratch\nCOPY model.txt config/serve.json /model/\n");
    await writeFile(join(context, "model.txt"), "weights");
    await writeFile(join(context, "config", "serve.json"), "{}");
    const upload = await dev("upload", context, "e2e/scorer");
    expect(upload.code, upload.stderr).toBe(0);
    expect(upload.stdout).toBe("s3://artifacts/e2e/scorer\n");
    const missing = await dev("upload", join(context, "no-such-dir"), "e2e/x");
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split("\n")).toEqual([
      `error: <directory>: ${join(context, "no-such-dir")} is not a directory`,
    ]);

    const config = new KubeConfig();
    config.loadFromFile(join(dir, "kubeconfig"));
    // the builds controller also watches Platforms (an override a Platform controls is trusted for its hosts)
    await applyCrds(join(dir, "kubeconfig"), [ImageBuildKind, PlatformKind], "slipway-tests");
    const objects = config.makeApiClient(CustomObjectsApi);
    const crd = {
      group: ImageBuildKind.group,
      version: ImageBuildKind.version,
      plural: ImageBuildKind.plural,
    };
    const spec = { project: "e2e", name: "scorer", version: "v1", artifactUri: "s3://artifacts/e2e/scorer" };
    await eventually(
      "ImageBuild created (CRD established)",
      () =>
        objects
          .createNamespacedCustomObject({
            ...crd,
            namespace: "slipway",
            body: {
              apiVersion: ImageBuildKind.apiVersion,
              kind: ImageBuildKind.kind,
              metadata: { name: "scorer" },
              spec,
            },
          })
          .then(
            () => true,
            () => false,
          ),
      (created) => created,
      30_000,
    );
    const build = await eventually(
      "ImageBuild scorer finished",
      () =>
        objects.getNamespacedCustomObject({
          ...crd,
          namespace: "slipway",
          name: "scorer",
        }) as Promise<ImageBuild>,
      (b) => b.status?.phase === "Succeeded" || b.status?.phase === "Failed",
      180_000,
    );
    expect(build.status?.phase, build.status?.message).toBe("Succeeded");
    const digest = await new RegistryClient({ registry, insecure: true }).manifestDigest(
      "slipway/e2e-scorer",
      "v1",
    );
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(build.status).toMatchObject({ image: `${registry}/slipway/e2e-scorer:v1`, digest, reused: false });

    const { secretAccessKey } = await devS3Credentials(services.builds);
    const operator = services.processes.find((p) => p.name === "slipway-operator");
    expect(operator?.args.join(" ")).not.toContain(secretAccessKey);
    for (const log of readdirSync(join(dir, "logs")))
      expect(readFileSync(join(dir, "logs", log), "utf8"), log).not.toContain(secretAccessKey);
    expect(readFileSync(join(dir, "platform-services.json"), "utf8")).not.toContain(secretAccessKey);

    // up restarts only what died; the registry's data outlives its process
    const registryPid = services.processes.find((p) => p.name === "docker-registry")?.pid ?? 0;
    process.kill(registryPid, "SIGKILL");
    const healed = await dev("up", "--nodes", "1");
    expect(healed.code, healed.stderr).toBe(0);
    expect(healed.stderr.match(/starting \S+/g)).toEqual(["starting docker-registry"]);
    const after = JSON.parse(readFileSync(join(dir, "platform-services.json"), "utf8")) as PlatformServices;
    for (const p of after.processes.filter((p) => p.name !== "docker-registry"))
      expect(p.pid).toBe(services.processes.find((q) => q.name === p.name)?.pid);
    expect(
      await new RegistryClient({ registry, insecure: true }).manifestDigest("slipway/e2e-scorer", "v1"),
    ).toBe(digest);

    const down = await dev("down");
    expect(down.code, down.stderr).toBe(0);
    for (const p of after.processes) expect(isRunning(p), `${p.name} still running`).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });
});
