import { describe, expect, it } from "vitest";
import { type Combination, dryRunSamples } from "../../support/builds/samples.ts";

// buildah pushes with a docker config: the configuration refuses a Google registry for it
const combinations: Combination[] = (["s3", "gcs"] as const).flatMap((storage) =>
  [true, false].map((credentials) => ({ registry: "docker" as const, storage, credentials })),
);

describe("rendered buildah Jobs", () => {
  it("are accepted by the real API server (server-side dry-run) for every store × credentials, unprivileged as rendered", async () => {
    await dryRunSamples("buildah", combinations, (accepted) => {
      const pod = accepted.spec?.template.spec;
      // the first init container is the fetcher (its own securityContext); buildah's run unprivileged
      for (const container of [...(pod?.initContainers?.slice(1) ?? []), ...(pod?.containers ?? [])]) {
        expect(container.securityContext?.privileged).toBeUndefined();
        expect(container.securityContext?.capabilities).toEqual({ drop: ["ALL"], add: ["SETUID", "SETGID"] });
      }
    });
  });
});
