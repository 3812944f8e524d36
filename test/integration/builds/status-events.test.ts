import pino from "pino";
import { describe, expect, it } from "vitest";
import type { ImageBuild } from "../../../src/apis/builds/imagebuild.ts";
import { parseBuildsConfig } from "../../../src/builds/config.ts";
import { imageBuildController } from "../../../src/builds/controller.ts";
import { types } from "../../../src/builds/resource-types.ts";
import { pushImage } from "../../../src/dev/push-image.ts";
import { KubeClient } from "../../../src/kube/client.ts";
import { ResourceTypes } from "../../../src/kube/discovery.ts";
import { RestClient } from "../../../src/kube/rest.ts";
import type { Cache, KubeObject, ReconcileContext, ResourceType } from "../../../src/kube/types.ts";
import {
  buildNamespace,
  buildsConfig,
  registryUser,
  useBuildServers,
} from "../../support/builds/fixtures.ts";
import { createImageBuild, readImageBuild } from "../../support/builds/operator.ts";
import { adminConfig } from "../../support/cluster.ts";

/** A cache that holds exactly one ImageBuild, as it was when copied: what a lagging informer serves. */
function cacheHolding(build: ImageBuild): Cache {
  return {
    get: <T extends KubeObject>(type: ResourceType, key: { name: string }) =>
      (type === types.imageBuild && key.name === build.metadata.name ? build : undefined) as T | undefined,
    list: () => [],
    byIndex: () => [],
  };
}

describe("ImageBuild status and Events", () => {
  const servers = useBuildServers();

  it("a reconcile from a copy the cache has not yet replaced writes nothing and records no Event", async () => {
    const namespace = await buildNamespace(servers);
    const version = `events-${namespace}`;
    await pushImage(servers.registry.address, `${namespace}/fraud-scorer`, version, registryUser);
    await createImageBuild(namespace, "scorer", {
      project: "fraud",
      name: "scorer",
      version,
      artifactUri: `s3://artifacts/${namespace}/none`,
    });
    const copy = await readImageBuild(namespace, "scorer");
    const rest = new RestClient(adminConfig());
    const client = new KubeClient(rest, new ResourceTypes(rest), { fieldManager: "slipway-builds-test" });
    const recorded: string[] = [];
    const context: ReconcileContext = {
      cache: cacheHolding(copy),
      client,
      events: { event: (_object, _type, reason) => recorded.push(reason) },
      log: pino({ level: "silent" }),
      signal: new AbortController().signal,
    };
    const spec = imageBuildController({ config: parseBuildsConfig(buildsConfig(servers)) });
    const key = { namespace, name: "scorer" };
    try {
      await spec.reconcile(key, context);
      const written = await readImageBuild(namespace, "scorer");
      expect(written.status).toMatchObject({ phase: "Succeeded", reused: true });
      expect(recorded).toEqual(["Reused"]);

      // the same copy once more, as a cache that has not seen the write yet serves it
      await spec.reconcile(key, context);
      expect(recorded).toEqual(["Reused"]);
      expect((await readImageBuild(namespace, "scorer")).status?.completedAt).toBe(
        written.status?.completedAt,
      );
    } finally {
      rest.close();
    }
  });
});
