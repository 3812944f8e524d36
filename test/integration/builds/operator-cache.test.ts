/** The operator caches only its own build Jobs and Pods (label-selected informers), not a namespace's others. */
import { BatchV1Api, CoreV1Api } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { buildJobLabels } from "../../../src/builds/build-job.ts";
import { types } from "../../../src/builds/resource-types.ts";
import { startBuildOperator } from "../../support/builds/operator.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";

const podSpec = { restartPolicy: "Never", containers: [{ name: "c", image: "example.com/app:1" }] };

describe("the image-build operator's cache", () => {
  it("holds a build-labelled Job and Pod of a watched namespace, and not the others there", async () => {
    const namespace = await testNamespace("cache");
    const batch = adminConfig().makeApiClient(BatchV1Api);
    const core = adminConfig().makeApiClient(CoreV1Api);
    const build = { [buildJobLabels.component]: "image-build" };
    for (const [name, podLabels] of [
      ["plain", {}],
      ["build", build],
    ] as const) {
      await core.createNamespacedPod({
        namespace,
        body: { metadata: { name, labels: podLabels }, spec: podSpec },
      });
      await batch.createNamespacedJob({
        namespace,
        body: {
          metadata: { name, labels: podLabels },
          spec: { template: { metadata: { labels: podLabels }, spec: podSpec } },
        },
      });
    }
    const operator = await startBuildOperator(namespace, { registry: { url: "127.0.0.1:1" } });
    const names = (type: typeof types.job | typeof types.pod) =>
      operator.manager.cache
        .list(type, { namespace })
        .map((o) => o.metadata?.name ?? "")
        .sort();
    expect(names(types.job)).toEqual(["build"]);
    // the build Job's pod (named after it) and the labelled Pod; not the plain Pod nor the plain Job's pod
    const pods = await eventually(
      "the build Job's pod cached",
      async () => names(types.pod),
      (list) => list.length === 2,
    );
    expect(pods[0]).toBe("build");
    expect(pods[1]).toMatch(/^build-/);
  });
});
