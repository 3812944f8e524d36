import { KubernetesObjectApi, type V1Job } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { type Combination, renderSample, sampleBuild } from "../../support/builds/samples.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";

// buildah pushes with a docker config: the configuration refuses a Google registry for it
const combinations: Combination[] = (["s3", "gcs"] as const).flatMap((storage) =>
  [true, false].map((credentials) => ({ registry: "docker" as const, storage, credentials })),
);

describe("rendered buildah Jobs", () => {
  it("are accepted by the real API server (server-side dry-run) for every store × credentials, unprivileged as rendered", async () => {
    const namespace = await testNamespace("ib-bdry");
    const api = KubernetesObjectApi.makeApiClient(adminConfig());
    const builds = [
      sampleBuild(),
      sampleBuild({ timeout: "2h", backoffLimit: 0, resources: { limits: { memory: "16Gi", cpu: "4" } } }),
    ];
    for (const combination of combinations) {
      for (const build of builds) {
        const job = renderSample(combination, build, "buildah");
        job.metadata = { ...job.metadata, namespace };
        const accepted = (await api.create(job, undefined, "All")) as V1Job;
        const pod = accepted.spec?.template.spec;
        expect(accepted.metadata?.name).toBe(job.metadata.name);
        expect(pod?.initContainers?.map((c) => [c.name, c.args])).toEqual(
          job.spec?.template.spec?.initContainers?.map((c) => [c.name, c.args]),
        );
        expect(pod?.containers[0]?.args).toEqual(job.spec?.template.spec?.containers[0]?.args);
        for (const container of [...(pod?.initContainers?.slice(1) ?? []), ...(pod?.containers ?? [])]) {
          expect(container.securityContext?.privileged).toBeUndefined();
          expect(container.securityContext?.capabilities).toEqual({
            drop: ["ALL"],
            add: ["SETUID", "SETGID"],
          });
        }
      }
    }
  });
});
