/**
 * A team that may create ImageBuilds (and its namespace's override ConfigMap) gets "build and push
 * into my own repositories", nothing more: each attack of issue 15 against the real control plane,
 * the real registry (htpasswd) and MinIO, with a listener on 127.0.0.1 as the host that must not be reached.
 */
import { CoreV1Api } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { uploadContext } from "../../../src/dev/build-server-children.ts";
import { buildNamespace, buildsConfig, jobsIn, useBuildServers } from "../../support/builds/fixtures.ts";
import { startListener } from "../../support/builds/listener.ts";
import { createImageBuild, startBuildOperator, waitForPhase } from "../../support/builds/operator.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";

const overrideConfigMap = (namespace: string, yaml: string) =>
  adminConfig()
    .makeApiClient(CoreV1Api)
    .createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: "slipway-builds" }, data: { "config.yaml": yaml } },
    });

describe("tenancy: what a team's ImageBuild can make the operator do", () => {
  const servers = useBuildServers();

  /** The platform's credentials in a shared build namespace; a team namespace with an artifact and an operator for it. */
  async function sharedBuildNamespace(extra: Record<string, unknown> = {}) {
    const builds = await buildNamespace(servers);
    const team = await testNamespace("team");
    const artifactUri = await uploadContext(servers, team, { Dockerfile: "FROM scratch\n" });
    const config = buildsConfig(servers, {
      buildNamespace: builds,
      kaniko: { podAnnotations: { "sim.slipway.dev/outcome": "hang" } },
      ...extra,
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
});
