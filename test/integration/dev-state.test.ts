/** The local control plane's state directory (keys, etcd's data, the kubeconfig) is its owner's alone. */
import { stat } from "node:fs/promises";
import { describe, expect, inject, it } from "vitest";
import { externalCluster, skipFor } from "../support/allowed-skips.ts";

describe("the dev state directory", () => {
  it("is mode 0700 once `up` ran", skipFor(inject("devDir") === "" ? externalCluster : ""), async () => {
    const mode = (await stat(inject("devDir"))).mode & 0o777;
    expect(mode.toString(8)).toBe("700");
  });
});
