import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { buildContainer, podContainers } from "../../../src/server/builds/build-log.ts";
import { containerStep } from "../../../src/server/pod-log.ts";
import { renderSample } from "../../support/builds/samples.ts";

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

describe("the container that holds the build's log", () => {
  const combination = { registry: "docker", storage: "s3", credentials: true } as const;
  /** The container of a rendered Job's pod that runs the builder itself: Kaniko's executor, buildah's `bud`. */
  const builder = (backend: "kaniko" | "buildah") => {
    const pod = renderSample(combination, undefined, backend).spec?.template.spec;
    const all = [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])];
    const runsBuilder = all.filter((container) =>
      backend === "kaniko" ? container.image?.includes("kaniko") : container.args?.includes("bud"),
    );
    expect(runsBuilder).toHaveLength(1);
    return { pod: { spec: pod }, name: runsBuilder[0]?.name };
  };

  it("is the one each backend's Job runs its builder in: Kaniko's and buildah's (not the fetch or the push)", () => {
    for (const backend of ["kaniko", "buildah"] as const) {
      const { pod, name } = builder(backend);
      expect(buildContainer(pod)).toBe(name);
    }
    expect(buildContainer(builder("buildah").pod)).toBe("build");
  });

  it("is none in a pod no backend rendered", () => {
    expect(buildContainer({ spec: { containers: [{ name: "main" }] } })).toBeUndefined();
  });
});
