import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type DevPlane, devPlacement, devPlaneOf } from "../../../src/cli/platform/dev-plane.ts";
import { platformSpecFromFlags } from "../../../src/cli/platform/install.ts";
import { UserError } from "../../../src/cli/run.ts";
import { realNodePlacement, realNodeStorageClass } from "../../../src/dev/real-node/objects.ts";
import { realNodeInstallFlags, realNodeInstallSettings } from "../../../src/dev/real-node/platform-flags.ts";
import { defaultGlobals } from "./cli-globals.ts";

const withRealNode: DevPlane = { dir: "/work/.slipway/dev", realNode: true };
const kwokOnly: DevPlane = {
  dir: "/work/.slipway/dev",
  realNode: false,
  realNodeSkipped: "the real node of /other runs on this machine (one per machine)",
};
const globals = defaultGlobals;

describe("where install --dev puts the platform's pods", () => {
  it("with --real-node on a plane with a real node: the newest release placed on it, as the demo's flags say", () => {
    const placement = devPlacement(withRealNode, { realNode: true }, "0.2.0");
    expect(placement.flags).toEqual({ version: "0.2.0", ...realNodeInstallSettings() });
    expect(placement.notice).toContain("real node, release 0.2.0");

    const spec = platformSpecFromFlags({ ...globals, dev: true, ...placement.flags });
    const { nodeSelector, tolerations } = realNodePlacement();
    expect(spec).toMatchObject({
      version: "0.2.0",
      storage: { storageClassName: realNodeStorageClass, artifactsSize: "1Gi", databaseSize: "1Gi" },
      components: { postgres: { nodeSelector, tolerations }, web: { nodeSelector, tolerations } },
    });
  });

  it("flags given win over the real node's settings; --set given comes after its own", () => {
    const placement = devPlacement(
      withRealNode,
      { realNode: true, registrySize: "2Gi", set: ["storage.databaseSize=2Gi"] },
      "0.2.0",
    );
    expect(placement.flags.registrySize).toBe("2Gi");
    expect(placement.flags.artifactsSize).toBe("1Gi");
    expect(platformSpecFromFlags({ ...globals, ...placement.flags }).storage).toMatchObject({
      registrySize: "2Gi",
      databaseSize: "2Gi",
    });
  });

  it("without --real-node: kwok's fake nodes, said plainly, with how to get the real node", () => {
    expect(devPlacement(withRealNode, {}, "0.2.0")).toEqual({
      flags: {},
      simulated:
        "the platform's pods are on kwok's fake nodes: kwok plays their lifecycle (Running, Ready) and no container runs; this control plane has a real node: `slipway install --dev --real-node` installs there (as `slipway dev demo` does)",
    });
    const onKwok = devPlacement(kwokOnly, {}, "0.2.0");
    expect(onKwok.flags).toEqual({});
    expect(onKwok.simulated).toContain(
      "no container runs; this control plane has no real node (the real node of /other runs on this machine (one per machine)): `slipway dev down --dir /work/.slipway/dev` then",
    );
  });

  it("refuses --real-node where there is none, or with a release whose images the node does not hold", () => {
    expect(() => devPlacement(kwokOnly, { realNode: true }, "0.2.0")).toThrow(UserError);
    expect(() => devPlacement(kwokOnly, { realNode: true }, "0.2.0")).toThrow(
      /^--real-node: this control plane has no real node/,
    );
    expect(() => devPlacement(undefined, { realNode: true }, "0.2.0")).toThrow(
      "--real-node: the kubeconfig is not a `slipway dev` control plane's",
    );
    expect(() => devPlacement(withRealNode, { realNode: true, version: "0.0.9" }, "0.2.0")).toThrow(
      "--version 0.0.9 with --real-node: the real node holds the images of release 0.2.0 only",
    );
    expect(devPlacement(undefined, {}, "0.2.0")).toEqual({ flags: {} });
  });

  it("the e2e's flags are the same settings", () => {
    const settings = realNodeInstallSettings();
    const flags = realNodeInstallFlags();
    expect(flags.slice(0, 8)).toEqual([
      "--storage-class",
      settings.storageClass,
      "--artifacts-size",
      "1Gi",
      "--registry-size",
      "1Gi",
      "--builder-cache-size",
      "1Gi",
    ]);
    expect(flags.slice(8)).toEqual(settings.set.flatMap((expression) => ["--set", expression]));
  });
});

describe("the dev plane of a kubeconfig", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("is the dev directory whose state names that kubeconfig, with its real node or why it has none", async () => {
    dir = await mkdtemp(join(tmpdir(), "slipway-dev-plane-"));
    const kubeconfig = join(dir, "kubeconfig");
    await writeFile(kubeconfig, "");
    const state = { kubeVersion: "v1.36.3", kubeconfig, ports: {}, pki: {}, processes: [] };
    await writeFile(join(dir, "state.json"), JSON.stringify({ ...state, realNode: { ports: {} } }));
    expect(await devPlaneOf(kubeconfig)).toEqual({ dir, realNode: true });
    await writeFile(join(dir, "state.json"), JSON.stringify({ ...state, realNodeSkipped: "not wanted" }));
    expect(await devPlaneOf(kubeconfig)).toEqual({ dir, realNode: false, realNodeSkipped: "not wanted" });

    expect(await devPlaneOf(join(dir, "other-kubeconfig"))).toBeUndefined();
    expect(await devPlaneOf(join(tmpdir(), "no-such-dir", "kubeconfig"))).toBeUndefined();
    expect(await devPlaneOf(`${kubeconfig}:/root/.kube/config`)).toBeUndefined();
    expect(await devPlaneOf(undefined)).toBeUndefined();
  });
});
