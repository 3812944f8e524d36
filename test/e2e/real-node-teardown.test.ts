/**
 * `slipway dev down` of a real node leaves nothing behind. The machine has one real node, the shared
 * plane's, so this file runs alone after every other integration file (the `integration-alone`
 * project of vitest.config.ts) and takes that node down the way `dev down` does (stopRealNode, the
 * first step of `down`; the rest of `down` — the control plane's processes and the directory — is
 * dev-cli.test.ts's). Nothing needs the node afterwards; a plane that outlives the run (it was running
 * before, or SLIPWAY_TEST_KEEP=1) gets it back.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { up } from "../../src/dev/cluster.ts";
import { isRunning } from "../../src/dev/processes.ts";
import { claimFile, claimRealNode, realNodeHolder, releaseRealNode } from "../../src/dev/real-node/claim.ts";
import { realNodePaths } from "../../src/dev/real-node/config.ts";
import { readImportRecord } from "../../src/dev/real-node/image-store.ts";
import { localImageReferences } from "../../src/dev/real-node/images.ts";
import {
  bridgeName,
  leftoverChains,
  leftoverDevices,
  podNetworkNamespaces,
} from "../../src/dev/real-node/network.ts";
import { clearAbandonedRealNode, realNodeProcessNames, stopRealNode } from "../../src/dev/real-node/node.ts";
import { mountsUnder, shimPids } from "../../src/dev/real-node/teardown.ts";
import { readState, writeState } from "../../src/dev/state.ts";
import { skipFor } from "../support/allowed-skips.ts";

const skipped = inject("realNodeSkipped");

describe("dev down of a real node", skipFor(skipped), () => {
  it("leaves no process, network device, mount, network namespace or iptables chain behind", {
    timeout: 300_000,
  }, async () => {
    const shared = inject("devDir");
    const another = join(shared, "..", "another");
    // while the shared plane holds the machine's real node, no other directory gets one
    expect(await claimRealNode(another)).toEqual({ ok: false, holder: shared });
    const state = await readState(shared);
    if (!state) throw new Error(`no state in ${shared}`);
    const nodeProcesses = state.processes.filter((p) => realNodeProcessNames.includes(p.name));
    expect(nodeProcesses.map((p) => p.name)).toEqual(
      expect.arrayContaining(["containerd", "kubelet", "kube-proxy", "apiserver-bridge"]),
    );
    for (const p of nodeProcesses) expect(isRunning(p), `${p.name} running before`).toBe(true);
    expect(await leftoverDevices()).toContain(bridgeName);
    const paths = realNodePaths(shared);
    expect(shimPids(paths.containerdSocket).length).toBeGreaterThan(0); // CoreDNS and the tests' pods run
    expect(await podNetworkNamespaces()).not.toEqual([]);

    try {
      await writeState(shared, await stopRealNode(shared, state, true));
      for (const p of nodeProcesses) expect(isRunning(p), `${p.name} still running`).toBe(false);
      expect(shimPids(paths.containerdSocket)).toEqual([]);
      expect(mountsUnder(readFileSync("/proc/self/mountinfo", "utf8"), paths.root)).toEqual([]);
      expect(mountsUnder(readFileSync("/proc/self/mountinfo", "utf8"), paths.containerdRoot)).toEqual([]);
      // the images stay in the machine's store, recorded by archive: the next `up` imports none of them
      const record = await readImportRecord();
      expect(Object.keys(record).sort()).toEqual(Object.values(localImageReferences()).sort());
      for (const archive of Object.values(record)) expect(existsSync(archive), archive).toBe(true);
      expect(await leftoverDevices()).toEqual([]);
      expect(await podNetworkNamespaces()).toEqual([]);
      expect(await leftoverChains()).toEqual([]);
      // the claim is given back: another directory may now take the machine's real node
      expect(await realNodeHolder()).toBeUndefined();
      expect(await claimRealNode(another)).toEqual({ ok: true });
      await releaseRealNode(another);

      // a claim whose `up` died without `dev down` (claimer and processes gone) goes to the next up
      await mkdir(another, { recursive: true });
      await writeState(another, { ...state, processes: [] });
      await writeFile(claimFile, JSON.stringify({ dir: another, pid: 0, started: "0" }));
      expect(await realNodeHolder()).toBe(another);
      const lines: string[] = [];
      await clearAbandonedRealNode(shared, (line) => lines.push(line));
      expect(lines).toEqual([
        `real node: ${another} holds it but none of its processes runs; removing what it left`,
      ]);
      expect(await realNodeHolder()).toBeUndefined();
      expect(await leftoverDevices()).toEqual([]);
    } finally {
      if (inject("planeOutlivesRun")) await up({ dir: shared });
    }
  });
});
