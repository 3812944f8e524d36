import { describe, it } from "vitest";
import { combinations, dryRunSamples } from "../../support/builds/samples.ts";

describe("rendered Kaniko Jobs", () => {
  it("are accepted by the real API server (server-side dry-run) for every registry × store × credentials", async () => {
    await dryRunSamples("kaniko", combinations);
  });
});
