/** The local control plane's state directory (keys, etcd's data, the kubeconfig) is its owner's alone. */
import { stat } from "node:fs/promises";
import { describe, expect, inject, it } from "vitest";

describe("the dev state directory", () => {
  it.skipIf(inject("devDir") === "")("is mode 0700 once `up` ran", async () => {
    const mode = (await stat(inject("devDir"))).mode & 0o777;
    expect(mode.toString(8)).toBe("700");
  });
});
