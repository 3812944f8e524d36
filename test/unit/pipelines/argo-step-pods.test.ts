import { describe, expect, it } from "vitest";
import { stepPod } from "../../../src/pipelines/argo/step-pods.ts";

const pod = (name: string, node?: string) => ({
  metadata: { name, ...(node ? { annotations: { "workflows.argoproj.io/node-name": node } } : {}) },
});

describe("stepPod: the pod of a step's last attempt, by Argo's node-name annotation", () => {
  const workflow = "ml.train-1";

  it("is the DAG task's pod for a step without retries", () => {
    const pods = [pod("a", `${workflow}.prepare`), pod("b", `${workflow}.train`), pod("c")];
    expect(stepPod(pods, workflow, "train")?.metadata.name).toBe("b");
  });

  it("is the highest attempt's pod for a retried step, whatever the list order", () => {
    const pods = [
      pod("t2", `${workflow}.train(2)`),
      pod("t10", `${workflow}.train(10)`),
      pod("t0", `${workflow}.train(0)`),
    ];
    expect(stepPod(pods, workflow, "train")?.metadata.name).toBe("t10");
  });

  it("matches no other step, workflow or malformed attempt", () => {
    const pods = [
      pod("x", `${workflow}.training`),
      pod("y", `other.train`),
      pod("z", `${workflow}.train(x)`),
      pod("w", `${workflow}.train(1`),
    ];
    expect(stepPod(pods, workflow, "train")).toBeUndefined();
  });
});
