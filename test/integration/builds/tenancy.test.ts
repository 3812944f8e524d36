/**
 * A team that may create ImageBuilds (and its namespace's override ConfigMap) gets "build and push
 * into my own repositories", nothing more: each attack of issue 15 against the real control plane,
 * the real registry (htpasswd) and MinIO, with a listener on 127.0.0.1 as the host that must not be reached.
 */
import { CoreV1Api } from "@kubernetes/client-node";
import { describe, expect, it, onTestFinished } from "vitest";
import { types } from "../../../src/builds/resource-types.ts";
import {
  buildNamespace,
  buildsConfig,
  jobsIn,
  jobsOnceCreated,
  registryUser,
  teamPushSecret,
  teamPushSecrets,
  useBuildServers,
} from "../../support/builds/fixtures.ts";
import { startListener } from "../../support/builds/listener.ts";
import {
  createImageBuild,
  readImageBuild,
  registrySecret,
  startBuildOperator,
  waitForPhase,
} from "../../support/builds/operator.ts";
import { startRealmRegistry } from "../../support/builds/token-server.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { uploadContext } from "../../support/fakes/build-server-children.ts";
import { reconciledAndIdle, trackReconciles } from "../../support/reconciles.ts";

const overrideConfigMap = (namespace: string, yaml: string) =>
  adminConfig()
    .makeApiClient(CoreV1Api)
    .createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: "slipway-builds" }, data: { "config.yaml": yaml } },
    });

describe("tenancy: what a team's ImageBuild can make the operator do", () => {
  const servers = useBuildServers();

  /**
   * The platform's credentials in a shared build namespace, with a push Secret there for the team's
   * (and `others`') builds; a team namespace with an artifact.
   */
  async function sharedBuildNamespace(
    extra: { tenancy?: Record<string, unknown> } & Record<string, unknown> = {},
    others: string[] = [],
  ) {
    const builds = await buildNamespace(servers);
    const team = await testNamespace("team");
    const artifactUri = await uploadContext(servers, team, { Dockerfile: "FROM scratch\n" });
    const config = buildsConfig(servers, {
      buildNamespace: builds,
      kaniko: { podAnnotations: { "sim.slipway.dev/outcome": "hang" } },
      ...extra,
      tenancy: { ...(await teamPushSecrets(servers, builds, [team, ...others])), ...extra.tenancy },
    });
    return { builds, team, artifactUri, config };
  }

  const spec = (artifactUri: string, version: string) => ({
    project: "fraud",
    name: "scorer",
    version,
    artifactUri,
  });

  it("the platform's registry credentials push only under the team's prefix: another team's repository is refused, with no Job", async () => {
    const { builds, team, artifactUri, config } = await sharedBuildNamespace();
    await overrideConfigMap(team, "naming: {image: '{registry}/team-b/{project}-{name}:{version}'}\n");
    await startBuildOperator(team, config, undefined, { allNamespaces: true });
    await createImageBuild(team, "scorer", spec(artifactUri, `other-${team}`));
    const build = await waitForPhase(team, "scorer", "Failed");
    expect(build.status?.conditions?.[0]).toMatchObject({
      reason: "ImageNotAllowed",
      message: `naming.image: renders repository team-b/fraud-scorer, but builds of namespace ${team} push only under ${servers.registry.address}/${team}/ (tenancy.repositoryPrefix)`,
    });
    expect(await jobsIn(builds)).toEqual([]);
  });

  it("an image on another host is refused before any request reaches it; an override may not change the registry host", async () => {
    const listener = await startListener();
    const { team, artifactUri, config } = await sharedBuildNamespace();
    await overrideConfigMap(team, `naming: {image: '${listener.address}/${team}/{name}:{version}'}\n`);
    await startBuildOperator(team, config, undefined, { allNamespaces: true });
    await createImageBuild(team, "scorer", spec(artifactUri, `host-${team}`));
    const build = await waitForPhase(team, "scorer", "Failed");
    expect(build.status?.conditions?.[0]?.reason).toBe("ImageNotAllowed");
    expect(build.status?.message).toMatch(
      new RegExp(
        `^naming.image: renders registry ${listener.address}, but builds of namespace ${team} push only to ${servers.registry.address} `,
      ),
    );

    // without a build namespace the team's override names the registry: not another host
    const own = await buildNamespace(servers);
    await overrideConfigMap(own, `registry: {url: '${listener.address}'}\n`);
    await startBuildOperator(own, buildsConfig(servers));
    await createImageBuild(own, "scorer", spec(`s3://artifacts/${own}/none`, `own-${own}`));
    const refused = await waitForPhase(own, "scorer", "Failed");
    expect(refused.status?.conditions?.[0]?.reason).toBe("InvalidOverride");
    expect(refused.status?.message).toContain(
      `registry.url: host ${listener.address} is not the platform's registry ${servers.registry.address}`,
    );
    expect(listener.requests).toEqual([]);
  });

  it("two namespaces building the same image reference get a Job each: one's timeout never deletes the other's", async () => {
    // no prefix: both namespaces render the same reference, the case where they used to share a Job
    const other = await testNamespace("team");
    const { builds, team, artifactUri, config } = await sharedBuildNamespace(
      { tenancy: { repositoryPrefix: "" } },
      [other],
    );
    const otherArtifact = await uploadContext(servers, other, { Dockerfile: "FROM scratch\n" });
    await startBuildOperator(team, config, undefined, { allNamespaces: true });
    await startBuildOperator(other, config, undefined, { allNamespaces: true });
    const version = `shared-${team}`;
    await createImageBuild(team, "scorer", spec(artifactUri, version));
    const first = await waitForPhase(team, "scorer", "Building");
    await createImageBuild(other, "scorer", { ...spec(otherArtifact, version), timeout: "1s" });
    const second = await waitForPhase(other, "scorer", "Failed", 30_000);
    expect(second.status?.image).toBe(first.status?.image);
    expect(second.status?.conditions?.[0]?.reason).toBe("Timeout");
    expect(second.status?.job?.name).not.toBe(first.status?.job?.name);
    const jobs = await eventually(
      "the first build's Job in the shared namespace",
      () => jobsIn(builds),
      (all) => all.some((j) => j.metadata?.name === first.status?.job?.name),
    );
    expect(jobs.find((j) => j.metadata?.name === first.status?.job?.name)?.metadata?.labels).toMatchObject({
      "builds.slipway.dev/build-uid": first.metadata.uid,
    });
    expect((await readImageBuild(team, "scorer")).status?.phase).toBe("Building");
  });

  it("in the shared build namespace a team without its own push Secret gets no build: the platform's credentials never reach a build pod", async () => {
    const { builds, team, artifactUri, config } = await sharedBuildNamespace();
    const unnamed = await testNamespace("team");
    const unnamedArtifact = await uploadContext(servers, unnamed, { Dockerfile: "FROM scratch\n" });
    await startBuildOperator(unnamed, config, undefined, { allNamespaces: true });
    await createImageBuild(unnamed, "scorer", spec(unnamedArtifact, `nopush-${unnamed}`));
    const refused = await waitForPhase(unnamed, "scorer", "Failed");
    expect(refused.status?.conditions?.[0]).toMatchObject({
      reason: "NotConfigured",
      message: `tenancy.namespaces.${unnamed}.pushSecret: builds of namespace ${unnamed} run in the shared namespace ${builds} and push with that namespace's own Secret there, and none is named (the platform's registry-creds is never mounted into a build pod)`,
    });
    expect(await jobsIn(builds)).toEqual([]);

    await startBuildOperator(team, config, undefined, { allNamespaces: true });
    await createImageBuild(team, "scorer", spec(artifactUri, `push-${team}`));
    await waitForPhase(team, "scorer", "Building");
    const [job] = await jobsOnceCreated(builds);
    const pod = job?.spec?.template.spec;
    expect(pod?.volumes?.find((v) => v.name === "registry-credentials")?.secret?.secretName).toBe(
      teamPushSecret,
    );
    expect(pod?.automountServiceAccountToken).toBe(false);
  });

  it("in the shared build namespace resources above the platform's cap are refused, naming the field and the cap, with no Job", async () => {
    const { builds, team, artifactUri, config } = await sharedBuildNamespace({
      tenancy: { maxResources: { memory: "16Gi", cpu: "4" } },
    });
    await startBuildOperator(team, config, undefined, { allNamespaces: true });
    await createImageBuild(team, "big", {
      ...spec(artifactUri, `big-${team}`),
      resources: { limits: { memory: "64Gi" } },
    });
    const refused = await waitForPhase(team, "big", "Failed");
    expect(refused.status?.conditions?.[0]).toMatchObject({
      reason: "ResourcesNotAllowed",
      message:
        "spec.resources.limits.memory: 64Gi is more than the 16Gi builds in the shared build namespace may have (tenancy.maxResources.memory)",
    });
    expect(await jobsIn(builds)).toEqual([]);
    await createImageBuild(team, "fits", {
      ...spec(artifactUri, `fits-${team}`),
      resources: { limits: { memory: "12Gi" } },
    });
    await waitForPhase(team, "fits", "Building");
  });

  it("a build joining its namespace's running Job never deletes it: its own timeout leaves the Job to the build that started it", async () => {
    const namespace = await buildNamespace(servers);
    const artifactUri = await uploadContext(servers, namespace, { Dockerfile: "FROM scratch\n" });
    const config = buildsConfig(servers, {
      kaniko: { podAnnotations: { "sim.slipway.dev/outcome": "hang" } },
    });
    const { manager } = await startBuildOperator(namespace, config);
    const reconciles = trackReconciles(manager, "imagebuild");
    const version = `join-${namespace}`;
    await createImageBuild(namespace, "first", spec(artifactUri, version));
    const first = await waitForPhase(namespace, "first", "Building");
    await createImageBuild(namespace, "second", { ...spec(artifactUri, version), timeout: "1s" });
    const second = await waitForPhase(namespace, "second", "Failed", 30_000);
    expect(second.status?.job).toEqual(first.status?.job);
    expect(second.status?.message).toContain("the Job it joined (another build's) is left running");
    // the failed build's reconciles are done, and no event of it or of the Job is on its way
    await reconciledAndIdle(
      manager,
      "imagebuild",
      reconciles,
      { type: types.imageBuild, key: { namespace, name: "second" } },
      {
        related: [
          {
            type: types.job,
            key: { namespace: first.status?.job?.namespace, name: first.status?.job?.name ?? "" },
          },
        ],
      },
    );
    expect((await jobsIn(namespace)).map((j) => j.metadata?.name)).toEqual([first.status?.job?.name]);
    expect((await readImageBuild(namespace, "first")).status?.phase).toBe("Building");
  });

  it("a registry naming a token realm on a host that is not allowed never gets the platform's credentials sent there", async () => {
    const listener = await startListener(() => ({ status: 200, body: '{"token":"x"}' }));
    const registry = await startRealmRegistry(`http://${listener.address}/token`);
    onTestFinished(() => registry.stop());
    const namespace = await testNamespace("ib");
    await registrySecret(
      namespace,
      "registry-creds",
      registry.address,
      registryUser.username,
      registryUser.password,
    );
    const config = buildsConfig(servers, {
      registry: { url: registry.address, insecure: true, credentialsSecret: "registry-creds" },
    });
    await startBuildOperator(namespace, config);
    await createImageBuild(namespace, "scorer", spec(`s3://artifacts/${namespace}/none`, "v1"));
    const build = await waitForPhase(namespace, "scorer", "Failed");
    expect(build.status?.conditions?.[0]?.reason).toBe("RegistryUnavailable");
    expect(build.status?.message).toContain(
      `Bearer realm http://${listener.address}/token refused: host ${listener.address} is neither the registry nor an allowed host`,
    );
    expect(listener.requests).toEqual([]);
  });

  it("a Dockerfile path leaving the build context is refused by the API server, naming the field, with no Job", async () => {
    const namespace = await buildNamespace(servers);
    await startBuildOperator(namespace, buildsConfig(servers));
    const created = createImageBuild(namespace, "scorer", {
      ...spec(`s3://artifacts/${namespace}/ctx`, "v1"),
      dockerfile: "../../kaniko/.docker/config.json",
    });
    await expect(created).rejects.toThrow(/spec\.dockerfile: Invalid value.*a path inside the build context/);
    expect(await jobsIn(namespace)).toEqual([]);
  });

  it("a Job the API server refuses (a permanent 4xx) fails the build with the server's message, once", async () => {
    const namespace = await buildNamespace(servers);
    const artifactUri = await uploadContext(servers, namespace, { Dockerfile: "FROM scratch\n" });
    await startBuildOperator(
      namespace,
      buildsConfig(servers, { kaniko: { nodeSelector: { "bad key!": "x" } } }),
    );
    await createImageBuild(namespace, "scorer", spec(artifactUri, "v1"));
    const build = await waitForPhase(namespace, "scorer", "Failed", 30_000);
    expect(build.status?.conditions?.[0]?.reason).toBe("JobRejected");
    expect(build.status?.message).toMatch(
      /^the API server refused the build's Job build-[a-z0-9-]+: .*422.*spec\.template\.spec\.nodeSelector/,
    );
    expect(await jobsIn(namespace)).toEqual([]);
  });
});
