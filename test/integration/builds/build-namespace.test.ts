import { CustomObjectsApi } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { jobCleanupFinalizer, ownerLabels } from "../../../src/builds/build-namespace.ts";
import {
  type BuildServers,
  buildNamespace,
  buildsConfig,
  jobsIn,
  startBuildServers,
  uploadContext,
} from "../../support/builds/fixtures.ts";
import {
  createImageBuild,
  deleteImageBuild,
  startBuildOperator,
  waitForPhase,
} from "../../support/builds/operator.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";

describe("buildNamespace: build Jobs and credentials in the platform's namespace", () => {
  let servers: BuildServers;
  beforeAll(async () => {
    [servers] = await Promise.all([startBuildServers(), installCrds([ImageBuildKind])]);
  });
  afterAll(() => servers?.stop());

  it("the Job runs there with the Secrets from there; deleting the ImageBuild deletes it", async () => {
    // the credentials Secrets exist only in the build namespace; the registry needs them
    const builds = await buildNamespace(servers);
    const team = await testNamespace("team");
    const artifactUri = await uploadContext(servers, team, { Dockerfile: "FROM scratch\n" });
    await startBuildOperator(
      team,
      buildsConfig(servers, {
        buildNamespace: builds,
        kaniko: { podAnnotations: { "sim.slipway.dev/outcome": "hang" } },
      }),
      undefined,
      { allNamespaces: true },
    );
    await createImageBuild(team, "scorer", {
      project: "fraud",
      name: "scorer",
      version: `bn-${team}`,
      artifactUri,
    });
    const build = await waitForPhase(team, "scorer", "Building");
    expect(build.metadata.finalizers).toEqual([jobCleanupFinalizer]);
    expect(await jobsIn(team)).toEqual([]);
    const [job, ...others] = await jobsIn(builds);
    expect(others).toEqual([]);
    expect(job?.metadata?.name).toBe(build.status?.jobName);
    expect(job?.metadata?.ownerReferences).toBeUndefined();
    expect(job?.metadata?.labels).toMatchObject({
      [ownerLabels.namespace]: team,
      [ownerLabels.uid]: build.metadata.uid,
    });

    await deleteImageBuild(team, "scorer");
    await eventually(
      "the Job in the build namespace deleted",
      () => jobsIn(builds),
      (jobs) => jobs.length === 0,
      30_000,
    );
    const objects = adminConfig().makeApiClient(CustomObjectsApi);
    await eventually(
      "the ImageBuild gone (finalizer removed)",
      () =>
        objects
          .listNamespacedCustomObject({
            group: ImageBuildKind.group,
            version: ImageBuildKind.version,
            plural: ImageBuildKind.plural,
            namespace: team,
          })
          .then((list) => (list as { items: unknown[] }).items.length),
      (count) => count === 0,
      30_000,
    );
  });
});
