import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import {
  buildArgsSecretName,
  jobCleanupFinalizer,
  ownerLabels,
} from "../../../src/builds/build-namespace.ts";
import {
  buildNamespace,
  buildsConfig,
  jobsIn,
  jobsOnceCreated,
  teamPushSecret,
  teamPushSecrets,
  useBuildServers,
} from "../../support/builds/fixtures.ts";
import {
  createImageBuild,
  deleteImageBuild,
  opaqueSecret,
  startBuildOperator,
  waitForPhase,
} from "../../support/builds/operator.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { uploadContext } from "../../support/fakes/build-server-children.ts";

const pipToken = "pip-token-3c9d4e21";

const imageBuildsIn = (namespace: string) =>
  adminConfig()
    .makeApiClient(CustomObjectsApi)
    .listNamespacedCustomObject({
      group: ImageBuildKind.group,
      version: ImageBuildKind.version,
      plural: ImageBuildKind.plural,
      namespace,
    })
    .then((list) => (list as { items: unknown[] }).items.length);

describe("buildNamespace: build Jobs and credentials in the platform's namespace", () => {
  const servers = useBuildServers();

  /**
   * A build namespace holding the credentials Secrets (the registry needs them), a team namespace
   * with an artifact, and an operator for the team whose build pods end as `outcome` says.
   */
  async function teamWithBuildNamespace(outcome: "hang" | "fail", allNamespaces: boolean) {
    const builds = await buildNamespace(servers);
    const team = await testNamespace("team");
    const artifactUri = await uploadContext(servers, team, { Dockerfile: "FROM scratch\n" });
    const config = buildsConfig(servers, {
      buildNamespace: builds,
      kaniko: { podAnnotations: { "sim.slipway.dev/outcome": outcome } },
      tenancy: await teamPushSecrets(servers, builds, [team]),
    });
    await startBuildOperator(team, config, undefined, { allNamespaces });
    return { builds, team, artifactUri };
  }

  for (const allNamespaces of [true, false]) {
    const scope = allNamespaces
      ? "an operator watching all namespaces"
      : "an operator watching only the ImageBuild's namespace";
    it(`${scope}: the Job runs there with the Secrets from there and a copy of the team's secret argument; deleting the ImageBuild deletes both`, async () => {
      const { builds, team, artifactUri } = await teamWithBuildNamespace("hang", allNamespaces);
      const core = adminConfig().makeApiClient(CoreV1Api);
      await opaqueSecret(team, "pip", { token: pipToken });
      await createImageBuild(team, "scorer", {
        project: "fraud",
        name: "scorer",
        version: `bn-${team}`,
        artifactUri,
        buildArgs: [{ name: "PIP_TOKEN", valueFrom: { secretKeyRef: { name: "pip", key: "token" } } }],
      });
      const build = await waitForPhase(team, "scorer", "Building");
      expect(build.metadata.finalizers).toEqual([jobCleanupFinalizer]);
      // the status says Building before the Job is created there (finalizer, status, copy, Job, copy owned)
      const [job, ...others] = await jobsOnceCreated(builds);
      expect(others).toEqual([]);
      expect(await jobsIn(team)).toEqual([]);
      expect(build.status?.job).toEqual({ namespace: builds, name: job?.metadata?.name });
      expect(job?.metadata?.ownerReferences).toBeUndefined();
      // the pod pushes with the team's own Secret there, never the platform's, and has no API token
      const pod = job?.spec?.template.spec;
      expect(pod?.volumes?.find((v) => v.name === "registry-credentials")?.secret?.secretName).toBe(
        teamPushSecret,
      );
      expect(JSON.stringify(pod)).not.toContain("registry-creds");
      expect(pod?.automountServiceAccountToken).toBe(false);
      // the team's secret build argument, copied next to the Job and owned by it; never in the Job itself
      expect(JSON.stringify(job)).not.toContain(pipToken);
      const copy = await eventually(
        "the copy of the secret argument owned by the Job",
        () =>
          core.readNamespacedSecret({
            namespace: builds,
            name: buildArgsSecretName(job?.metadata?.name ?? ""),
          }),
        (secret) => secret.metadata?.ownerReferences !== undefined,
        30_000,
      );
      expect(Buffer.from(copy.data?.PIP_TOKEN ?? "", "base64").toString()).toBe(pipToken);
      expect(copy.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "Job", uid: job?.metadata?.uid });
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
      await eventually(
        "the copied Secret deleted",
        async () =>
          (await core.listNamespacedSecret({ namespace: builds })).items.map((x) => x.metadata?.name),
        (names) => !names.includes(copy.metadata?.name),
        30_000,
      );
      await eventually(
        "the ImageBuild gone (finalizer removed)",
        () => imageBuildsIn(team),
        (n) => n === 0,
        30_000,
      );
    });
  }

  it("a secret build argument whose Secret is missing fails the build naming it, with no Job", async () => {
    const { builds, team, artifactUri } = await teamWithBuildNamespace("hang", true);
    await createImageBuild(team, "scorer", {
      project: "fraud",
      name: "scorer",
      version: `bn-missing-${team}`,
      artifactUri,
      buildArgs: [{ name: "PIP_TOKEN", valueFrom: { secretKeyRef: { name: "absent", key: "token" } } }],
    });
    const failed = await waitForPhase(team, "scorer", "Failed");
    expect(failed.status?.conditions?.[0]).toMatchObject({
      reason: "InvalidBuildArgument",
      message: `spec.buildArgs PIP_TOKEN: Secret absent not found in namespace ${team}`,
    });
    expect(await jobsIn(builds)).toEqual([]);
  });

  it("an operator watching only the ImageBuild's namespace: a Job failing there fails the build with the Job's message", async () => {
    const { team, artifactUri } = await teamWithBuildNamespace("fail", false);
    await createImageBuild(team, "scorer", {
      project: "fraud",
      name: "scorer",
      version: `bf-${team}`,
      artifactUri,
      backoffLimit: 0,
    });
    const build = await waitForPhase(team, "scorer", "Failed");
    expect(build.status?.conditions?.[0]?.reason).toBe("BuildFailed");
    expect(build.status?.message).toMatch(/backoff limit/i);
  });
});
