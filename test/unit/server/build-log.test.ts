import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { containerStep, podContainers } from "../../../src/server/builds/build-log.ts";

const pod = (phase: string, states: Record<string, "waiting" | "running" | "terminated">): V1Pod => ({
  spec: { initContainers: [{ name: "fetch" }], containers: [{ name: "kaniko" }] },
  status: {
    phase,
    initContainerStatuses: states.fetch ? [status("fetch", states.fetch)] : [],
    containerStatuses: states.kaniko ? [status("kaniko", states.kaniko)] : [],
  },
});
const status = (name: string, state: string) => ({
  name,
  image: "i",
  imageID: "",
  ready: false,
  restartCount: 0,
  state: { [state]: state === "terminated" ? { exitCode: 0 } : {} },
});

describe("following a build pod's log, container by container", () => {
  it("runs through the init containers first, then the containers", () => {
    expect(podContainers(pod("Pending", {}))).toEqual(["fetch", "kaniko"]);
  });

  it("follows a container that runs or ran, waits for one not started, skips one a finished pod never started", () => {
    expect(containerStep(pod("Pending", { fetch: "running", kaniko: "waiting" }), "fetch")).toBe("follow");
    expect(containerStep(pod("Pending", { fetch: "running", kaniko: "waiting" }), "kaniko")).toBe("wait");
    expect(containerStep(pod("Pending", {}), "fetch")).toBe("wait");
    expect(containerStep(pod("Running", { fetch: "terminated", kaniko: "running" }), "kaniko")).toBe(
      "follow",
    );
    expect(containerStep(pod("Failed", { fetch: "terminated", kaniko: "waiting" }), "kaniko")).toBe("skip");
    expect(containerStep(pod("Succeeded", { fetch: "terminated", kaniko: "terminated" }), "kaniko")).toBe(
      "follow",
    );
  });
});
