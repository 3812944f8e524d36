/**
 * A wait that times out on a pod that failed says why it failed: its phase, its container's
 * terminated reason and exit code and what its logs gave (kwok's fake nodes serve none: the reason
 * why), never its managedFields.
 */
import { CoreV1Api } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { adminConfig, eventually, testNamespace } from "../support/cluster.ts";

describe("a timed-out wait on a pod", () => {
  it("names the phase, the container's terminated reason and exit code, and the logs' state", async () => {
    const namespace = await testNamespace("wait");
    const core = adminConfig().makeApiClient(CoreV1Api);
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: {
          name: "client",
          annotations: {
            "sim.slipway.dev/outcome": "fail",
            "sim.slipway.dev/reason": "OOMKilled",
            "sim.slipway.dev/exit-code": "137",
          },
        },
        spec: { containers: [{ name: "fetch", image: "registry.invalid/client:1" }] },
      },
    });
    const read = () => core.readNamespacedPod({ namespace, name: "client" });
    await eventually("pod client Failed", read, (pod) => pod.status?.phase === "Failed");

    const error = await eventually(
      "pod client Succeeded",
      read,
      (pod) => pod.status?.phase === "Succeeded",
      400,
    )
      .then(() => undefined)
      .catch((e: Error) => e);
    const lines = error?.message.split("\n") ?? [];
    expect(lines.slice(0, 2)).toEqual([
      "timed out after 0.4s waiting for pod client Succeeded; last seen:",
      `Pod ${namespace}/client, phase Failed`,
    ]);
    expect(lines[2]).toMatch(/^ {2}conditions: .*Ready=False \(PodFailed\)/);
    expect(lines[3]).toBe("  container fetch: terminated OOMKilled (exit code 137)");
    expect(error?.message).toMatch(/\n {2}logs of fetch: unavailable \(.+\)/);
    expect(error?.message).not.toContain("managedFields");
  });
});
