import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalBuilder } from "../../../src/builds/local-builder.ts";
import { RegistryClient } from "../../../src/builds/registry/client.ts";
import {
  buildNamespace,
  buildsConfig,
  eventsIn,
  jobsIn,
  registryUser,
  useBuildServers,
} from "../../support/builds/fixtures.ts";
import {
  createImageBuild,
  opaqueSecret,
  startBuildOperator,
  waitForPhase,
} from "../../support/builds/operator.ts";
import { uploadContext } from "../../support/fakes/build-server-children.ts";

const secretArg = "model-key-90c1d2e3";

describe("ImageBuild controller, local backend (buildah)", () => {
  const servers = useBuildServers();
  let storage: string;
  beforeAll(async () => {
    storage = await mkdtemp(join(tmpdir(), "slipway-buildah-test-"));
  });
  afterAll(async () => {
    if (storage) await rm(storage, { recursive: true, force: true });
  });

  it("image missing → really builds from the artifact in S3 and pushes; the manifest then exists", async () => {
    const namespace = await buildNamespace(servers);
    await opaqueSecret(namespace, "model", { key: secretArg });
    const artifactUri = await uploadContext(servers, `${namespace}/scorer`, {
      Dockerfile:
        "FROM scratch\nARG MODEL_KEY\nCOPY model.txt /model/model.txt\nCOPY config/serve.json /model/serve.json\n",
      "model.txt": "weights",
      "config/serve.json": "{}",
    });
    const builder = new LocalBuilder(storage);
    const operator = await startBuildOperator(
      namespace,
      buildsConfig(servers, { backend: "local" }),
      builder,
    );
    const registry = new RegistryClient({
      registry: servers.registry.address,
      insecure: true,
      credentials: async () => registryUser,
    });
    const tag = `local-${namespace}`;
    expect(await registry.manifestDigest(`${namespace}/fraud-scorer`, tag)).toBeUndefined();

    await createImageBuild(namespace, "scorer", {
      project: "fraud",
      name: "scorer",
      version: tag,
      artifactUri,
      buildArgs: [{ name: "MODEL_KEY", valueFrom: { secretKeyRef: { name: "model", key: "key" } } }],
    });
    const build = await waitForPhase(namespace, "scorer", "Succeeded", 120_000);
    const digest = await registry.manifestDigest(`${namespace}/fraud-scorer`, tag);
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(build.status).toMatchObject({
      reused: false,
      digest,
      image: `${servers.registry.address}/${namespace}/fraud-scorer:${tag}`,
    });
    expect(
      builder.logs(`${namespace}/${servers.registry.address}/${namespace}/fraud-scorer:${tag}`),
    ).toContain("fetched 3 objects");
    expect(await jobsIn(namespace)).toEqual([]);
    const everything = JSON.stringify([build, await eventsIn(namespace), operator.logs]);
    for (const secret of [secretArg, registryUser.password, servers.s3.secretAccessKey])
      expect(everything).not.toContain(secret);
  });

  it("a build that fails in buildah → Failed with buildah's error, no retry loop", async () => {
    const namespace = await buildNamespace(servers);
    const artifactUri = await uploadContext(servers, `${namespace}/broken`, {
      Dockerfile: "FROM scratch\nCOPY not-in-the-artifact.txt /x\n",
    });
    await startBuildOperator(
      namespace,
      buildsConfig(servers, { backend: "local" }),
      new LocalBuilder(storage),
    );
    await createImageBuild(namespace, "broken", {
      project: "fraud",
      name: "broken",
      version: `v-${namespace}`,
      artifactUri,
    });
    const build = await waitForPhase(namespace, "broken", "Failed", 120_000);
    expect(build.status?.conditions?.[0]?.reason).toBe("BuildFailed");
    expect(build.status?.message).toMatch(
      /build failed after 1 attempts: buildah bud exited with \d+: .*not-in-the-artifact\.txt/,
    );
  });

  it("a build argument named PATH does not choose the binary the operator runs (buildah's environment is fixed)", async () => {
    const namespace = await buildNamespace(servers);
    const evil = await mkdtemp(join(tmpdir(), "slipway-evil-path-"));
    const marker = join(evil, "ran");
    await writeFile(join(evil, "buildah"), `#!/bin/sh\ntouch ${marker}\nexit 0\n`, { mode: 0o755 });
    const artifactUri = await uploadContext(servers, `${namespace}/net`, {
      Dockerfile: "FROM scratch\nCOPY Dockerfile /x\n",
    });
    await startBuildOperator(
      namespace,
      buildsConfig(servers, { backend: "local" }),
      new LocalBuilder(storage),
    );
    await createImageBuild(namespace, "path", {
      project: "fraud",
      name: "path",
      version: `v-${namespace}`,
      artifactUri,
      buildArgs: [{ name: "PATH", value: evil }],
    });
    await waitForPhase(namespace, "path", "Succeeded", 120_000);
    expect(existsSync(marker)).toBe(false);
    await rm(evil, { recursive: true, force: true });
  });

  it("outside dev mode the local backend builds nothing: the build fails saying so", async () => {
    const namespace = await buildNamespace(servers);
    await startBuildOperator(
      namespace,
      buildsConfig(servers, { backend: "local" }),
      new LocalBuilder(storage),
      {
        devMode: false,
      },
    );
    await createImageBuild(namespace, "scorer", {
      project: "fraud",
      name: "scorer",
      version: `v-${namespace}`,
      artifactUri: `s3://artifacts/${namespace}/none`,
    });
    const build = await waitForPhase(namespace, "scorer", "Failed");
    expect(build.status?.conditions?.[0]).toMatchObject({
      reason: "NotConfigured",
      message: expect.stringMatching(
        /^backend: local runs every build on the operator's own machine: allowed only in dev mode \(SLIPWAY_DEV_MODE=1/,
      ),
    });
  });
});
