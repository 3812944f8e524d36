import pino from "pino";
import { describe, expect, it } from "vitest";
import type { ImageBuild } from "../../../src/apis/builds/imagebuild.ts";
import { parseBuildsConfig } from "../../../src/builds/config.ts";
import { imageBuildController } from "../../../src/builds/controller.ts";
import { types } from "../../../src/builds/resource-types.ts";
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
import { pushImage } from "../../support/fakes/push-image.ts";

/** A cache that holds exactly one ImageBuild, as it was when copied: what a lagging informer serves. */
function cacheHolding(build: ImageBuild): Cache {
  return {
    get: <T extends KubeObject>(type: ResourceType, key: { name: string }) =>
      (type === types.imageBuild && key.name === build.metadata.name ? build : undefined) as T | undefined,
    list: () => [],
    byIndex: () => [],
    holds: () => false,
  };
}

/** A reconcile context over `copy` (as a cache that holds it serves it), counting status writes and Events. */
function countingContext(copy: ImageBuild, rest: RestClient) {
  const client = new KubeClient(rest, new ResourceTypes(rest), { fieldManager: "slipway-builds-test" });
  const recorded: string[] = [];
  const writes = { count: 0 };
  const applyStatus = client.applyStatus.bind(client);
  client.applyStatus = (...args) => {
    writes.count++;
    return applyStatus(...args);
  };
  const context: ReconcileContext = {
    cache: cacheHolding(copy),
    client,
    events: { event: (_object, _type, reason) => recorded.push(reason) },
    log: pino({ level: "silent" }),
    signal: new AbortController().signal,
  };
  return { context, recorded, writes };
}

describe("ImageBuild status and Events", () => {
  const servers = useBuildServers();
  const buildSpec = (namespace: string, version: string) => ({
    project: "fraud",
    name: "scorer",
    version,
    artifactUri: `s3://artifacts/${namespace}/none`,
  });

  it("a reconcile from a copy the cache has not yet replaced writes nothing and records no Event", async () => {
    // the registry refuses the password: Failed with a Warning Event
    const namespace = await buildNamespace(servers, "not-the-password");
    await createImageBuild(namespace, "scorer", buildSpec(namespace, "v1"));
    const rest = new RestClient(adminConfig());
    const { context, recorded } = countingContext(await readImageBuild(namespace, "scorer"), rest);
    const spec = imageBuildController({ config: parseBuildsConfig(buildsConfig(servers)) });
    const key = { namespace, name: "scorer" };
    try {
      await spec.reconcile(key, context);
      const written = await readImageBuild(namespace, "scorer");
      expect(written.status).toMatchObject({ phase: "Failed" });
      expect(recorded).toEqual(["CredentialsRejected"]);

      // the same copy once more, as a cache that has not seen the write yet serves it
      await spec.reconcile(key, context);
      expect(recorded).toEqual(["CredentialsRejected"]);
      expect((await readImageBuild(namespace, "scorer")).status?.completedAt).toBe(
        written.status?.completedAt,
      );
    } finally {
      rest.close();
    }
  });

  it("a reused image is recorded by its status alone: one status write, no Event", async () => {
    const namespace = await buildNamespace(servers);
    const version = `reused-${namespace}`;
    await pushImage(servers.registry.address, `${namespace}/fraud-scorer`, version, registryUser);
    await createImageBuild(namespace, "scorer", buildSpec(namespace, version));
    const rest = new RestClient(adminConfig());
    const { context, recorded, writes } = countingContext(await readImageBuild(namespace, "scorer"), rest);
    const spec = imageBuildController({ config: parseBuildsConfig(buildsConfig(servers)) });
    try {
      await spec.reconcile({ namespace, name: "scorer" }, context);
      const written = await readImageBuild(namespace, "scorer");
      expect(written.status).toMatchObject({ phase: "Succeeded", reused: true });
      expect(written.status?.conditions?.[0]).toMatchObject({ reason: "Reused" });
      expect(writes.count).toBe(1);
      expect(recorded).toEqual([]);
    } finally {
      rest.close();
    }
  });
});
