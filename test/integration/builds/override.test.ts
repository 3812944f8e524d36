import { CoreV1Api, EventsV1Api } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { types } from "../../../src/builds/resource-types.ts";
import {
  buildNamespace,
  buildsConfig,
  jobsIn,
  registryUser,
  useBuildServers,
} from "../../support/builds/fixtures.ts";
import {
  createImageBuild,
  readImageBuild,
  startBuildOperator,
  waitForPhase,
} from "../../support/builds/operator.ts";
import { adminConfig, eventually } from "../../support/cluster.ts";
import { pushImage } from "../../support/fakes/push-image.ts";
import { reconciledAndIdle, trackReconciles } from "../../support/reconciles.ts";

describe("per-namespace override: ConfigMap slipway-builds", () => {
  const servers = useBuildServers();

  it("a bad override fails the build naming the ConfigMap and field; fixing it runs the build with the merged configuration", async () => {
    const namespace = await buildNamespace(servers);
    const core = adminConfig().makeApiClient(CoreV1Api);
    const events = adminConfig().makeApiClient(EventsV1Api);
    const configMap = (yaml: string) => ({
      metadata: { name: "slipway-builds" },
      data: { "config.yaml": yaml },
    });
    await core.createNamespacedConfigMap({ namespace, body: configMap("registry: {type: quay}\n") });
    // the image the override's naming renders already exists: the fixed build is reused, no Job
    const digest = await pushImage(
      servers.registry.address,
      `${namespace}/team-scorer`,
      `ov-${namespace}`,
      registryUser,
    );
    const { manager } = await startBuildOperator(namespace, buildsConfig(servers));
    await createImageBuild(namespace, "scorer", {
      project: "fraud",
      name: "scorer",
      version: `ov-${namespace}`,
      artifactUri: `s3://artifacts/${namespace}/none`,
    });
    const failed = await waitForPhase(namespace, "scorer", "Failed");
    expect(failed.status?.conditions?.[0]?.reason).toBe("InvalidOverride");
    expect(failed.status?.message).toMatch(
      new RegExp(`^ConfigMap slipway-builds in namespace ${namespace}, config.yaml: registry\\.type: `),
    );

    // the ConfigMap changes but stays just as invalid: the failure is not written or reported again
    const reconciles = trackReconciles(manager, "imagebuild");
    await core.replaceNamespacedConfigMap({
      name: "slipway-builds",
      namespace,
      body: {
        ...configMap("registry: {type: quay}\n"),
        metadata: { name: "slipway-builds", labels: { touched: "1" } },
      },
    });
    await eventually(
      "the build reconciled with the changed ConfigMap",
      async () => reconciles.count(namespace, "scorer"),
      (n) => n >= 1,
    );
    await reconciledAndIdle(
      manager,
      "imagebuild",
      reconciles,
      { type: types.imageBuild, key: { namespace, name: "scorer" } },
      { related: [{ type: types.overrideConfigMap, key: { namespace, name: "slipway-builds" } }] },
    );
    expect((await readImageBuild(namespace, "scorer")).status?.completedAt).toBe(failed.status?.completedAt);
    // the runtime's recorder (events.k8s.io) reports a repeat in the first Event's series.count
    const warnings = (await events.listNamespacedEvent({ namespace })).items.filter(
      (e) => e.reason === "InvalidOverride",
    );
    expect(warnings.map((e) => e.series?.count ?? 1)).toEqual([1]);

    await core.replaceNamespacedConfigMap({
      name: "slipway-builds",
      namespace,
      body: configMap("naming: {image: '{registry}/{prefix}team-{name}:{version}'}\n"),
    });
    const build = await eventually(
      "the build run again with the fixed override",
      () => readImageBuild(namespace, "scorer"),
      (b) => b.status?.phase === "Succeeded",
    );
    expect(build.status).toMatchObject({
      reused: true,
      digest,
      image: `${servers.registry.address}/${namespace}/team-scorer:ov-${namespace}`,
    });
    expect(await jobsIn(namespace)).toEqual([]);
  });
});
