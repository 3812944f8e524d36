import { KubernetesObjectApi } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { combinations, renderSample, sampleBuild } from "../../support/builds/samples.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";

describe("rendered Kaniko Jobs", () => {
  it("are accepted by the real API server (server-side dry-run) for every registry × store × credentials", async () => {
    const namespace = await testNamespace("ib-dry");
    const api = KubernetesObjectApi.makeApiClient(adminConfig());
    const builds = [
      sampleBuild(),
      sampleBuild({ timeout: "2h", backoffLimit: 0, resources: { limits: { memory: "16Gi", cpu: "4" } } }),
    ];
    for (const combination of combinations) {
      for (const build of builds) {
        const job = renderSample(combination, build);
        job.metadata = { ...job.metadata, namespace };
        const accepted = await api.create(job, undefined, "All");
        expect(accepted.metadata?.name).toBe(job.metadata.name);
        expect((accepted as typeof job).spec?.template.spec?.containers[0]?.args).toEqual(
          job.spec?.template.spec?.containers[0]?.args,
        );
      }
    }
  });
});
