/**
 * Build slots (maxConcurrentBuilds) on the real control plane: only the operator's own running Jobs
 * hold one, and two namespaces share them fairly (src/builds/build-slots.ts).
 */
import { BatchV1Api, CoreV1Api, CustomObjectsApi, type V1Job } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { buildNamespace, buildsConfig, jobsIn, useBuildServers } from "../../support/builds/fixtures.ts";
import {
  createImageBuild,
  deleteImageBuild,
  readImageBuild,
  startBuildOperator,
  waitForPhase,
} from "../../support/builds/operator.ts";
import { adminConfig, eventually } from "../../support/cluster.ts";
import { uploadContext } from "../../support/fakes/build-server-children.ts";
import { grantRole, serviceAccountConfig } from "../../support/service-account.ts";

const hang = { "sim.slipway.dev/outcome": "hang" };
const buildLabels = {
  "app.kubernetes.io/component": "image-build",
  "app.kubernetes.io/managed-by": "slipway",
};

/** A Job that looks like a build Job (labels, container) but no ImageBuild of the operator's owns. */
const lookAlike = (name: string, suspend: boolean): V1Job => ({
  metadata: { name, labels: buildLabels },
  spec: {
    suspend,
    template: {
      metadata: { labels: buildLabels, annotations: hang },
      spec: {
        restartPolicy: "Never",
        containers: [{ name: "kaniko", image: "gcr.io/kaniko-project/executor" }],
      },
    },
  },
});

const spec = (artifactUri: string, version: string) => ({
  project: "fraud",
  name: "scorer",
  version,
  artifactUri,
});

/** The build once it either runs or waits for a slot (generation: once it decided on that one). */
const startedOrQueued = (namespace: string, name: string, generation = 1) =>
  eventually(
    `ImageBuild ${name} Building or Queued`,
    () => readImageBuild(namespace, name),
    (b) =>
      b.status?.observedGeneration === generation &&
      (b.status.phase === "Building" || b.status.conditions?.[0]?.reason === "Queued"),
  );

describe("build slots", () => {
  const servers = useBuildServers();

  it("a tenant's ten suspended look-alike Jobs and a running unowned one, made with a token that may create Jobs, do not queue another namespace's build", async () => {
    const tenant = await buildNamespace(servers);
    const other = await buildNamespace(servers);
    await adminConfig()
      .makeApiClient(CoreV1Api)
      .createNamespacedServiceAccount({ namespace: tenant, body: { metadata: { name: "jobs" } } });
    await grantRole(tenant, "jobs", "jobs", [
      { apiGroups: ["batch"], resources: ["jobs"], verbs: ["create"] },
    ]);
    const asTenant = (await serviceAccountConfig(adminConfig(), tenant, "jobs")).makeApiClient(BatchV1Api);
    for (let i = 0; i < 10; i++)
      await asTenant.createNamespacedJob({ namespace: tenant, body: lookAlike(`build-fake-${i}`, true) });
    await asTenant.createNamespacedJob({ namespace: tenant, body: lookAlike("build-fake-running", false) });

    const artifactUri = await uploadContext(servers, other, { Dockerfile: "FROM scratch\n" });
    await startBuildOperator(
      other,
      buildsConfig(servers, { maxConcurrentBuilds: 10, kaniko: { podAnnotations: hang } }),
      undefined,
      { namespaces: [tenant, other] },
    );
    expect((await jobsIn(tenant)).length).toBe(11);
    await createImageBuild(other, "scorer", spec(artifactUri, `slots-${other}`));
    const build = await startedOrQueued(other, "scorer");
    expect(build.status?.message).not.toMatch(/maxConcurrentBuilds/);
    expect(build.status?.phase).toBe("Building");
  });

  it("two namespaces share the slots: one holding its share does not take the slot freed while the other's build waits", async () => {
    const [a, b] = [await buildNamespace(servers), await buildNamespace(servers)];
    const [uriA, uriB] = [
      await uploadContext(servers, a, { Dockerfile: "FROM scratch\n" }),
      await uploadContext(servers, b, { Dockerfile: "FROM scratch\n" }),
    ];
    await startBuildOperator(
      a,
      buildsConfig(servers, { maxConcurrentBuilds: 2, kaniko: { podAnnotations: hang } }),
      undefined,
      { namespaces: [a, b] },
    );
    await createImageBuild(a, "a1", spec(uriA, `a1-${a}`));
    await createImageBuild(a, "a2", spec(uriA, `a2-${a}`));
    await waitForPhase(a, "a1", "Building");
    await waitForPhase(a, "a2", "Building");
    await createImageBuild(a, "a3", spec(uriA, `a3-${a}`));
    expect((await startedOrQueued(a, "a3")).status?.message).toMatch(
      /2 builds running \(maxConcurrentBuilds 2\)/,
    );
    await createImageBuild(b, "b1", spec(uriB, `b1-${b}`));
    expect((await startedOrQueued(b, "b1")).status?.phase).toBe("Pending");

    // a slot frees; a3 looks again at once (a change of its spec), before b1's next look
    await deleteImageBuild(a, "a1");
    await eventually(
      "a1's Job gone",
      () => jobsIn(a),
      (jobs) => jobs.length === 1,
    );
    await adminConfig()
      .makeApiClient(CustomObjectsApi)
      .patchNamespacedCustomObject({
        group: ImageBuildKind.group,
        version: ImageBuildKind.version,
        plural: ImageBuildKind.plural,
        namespace: a,
        name: "a3",
        body: [{ op: "add", path: "/spec/labels", value: { looked: "again" } }],
      });
    const a3 = await startedOrQueued(a, "a3", 2);
    expect(a3.status?.phase).toBe("Pending");
    await waitForPhase(b, "b1", "Building");
    expect((await readImageBuild(a, "a3")).status?.phase).toBe("Pending");
    expect((await jobsIn(a)).length).toBe(1);
  });
});
