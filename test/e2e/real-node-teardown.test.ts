/**
 * `slipway dev down` of a real node leaves nothing behind. The machine has one real node, so this
 * takes the shared plane's aside for a while: it runs alone, after every other integration file
 * (the `integration-alone` project of vitest.config.ts), never beside tests that need that node.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { up } from "../../src/dev/cluster.ts";
import { isRunning } from "../../src/dev/processes.ts";
import { claimRealNode } from "../../src/dev/real-node/claim.ts";
import { realNodePaths } from "../../src/dev/real-node/config.ts";
import {
  bridgeName,
  leftoverChains,
  leftoverDevices,
  podNetworkNamespaces,
} from "../../src/dev/real-node/network.ts";
import { stopRealNode } from "../../src/dev/real-node/node.ts";
import { mountsUnder, shimPids } from "../../src/dev/real-node/teardown.ts";
import { type DevState, readState, writeState } from "../../src/dev/state.ts";
import { skipFor } from "../support/allowed-skips.ts";
import { privateDev } from "../support/cli.ts";

const skipped = inject("realNodeSkipped");

// One real node per machine: the shared plane's steps aside (stopRealNode, as `dev down` does), a
// private directory runs `slipway dev up` + `dev down` with it, then the shared one is started again.
describe("dev down of a real node", skipFor(skipped), () => {
  it("leaves no process, network device, mount, network namespace or iptables chain behind", {
    timeout: 900_000,
  }, async () => {
    const shared = inject("devDir");
    // while the shared plane holds the machine's real node, no other directory gets one
    expect(await claimRealNode(join(shared, "..", "another"))).toEqual({ ok: false, holder: shared });
    const sharedState = await readState(shared);
    if (!sharedState) throw new Error(`no state in ${shared}`);
    await writeState(shared, await stopRealNode(shared, sharedState, true));
    try {
      const { dir, dev } = await privateDev("slipway-real-node-", { realNode: true });
      const started = await dev("up", "--nodes", "1");
      expect(started.code, started.stderr).toBe(0);
      const state = JSON.parse(readFileSync(join(dir, "state.json"), "utf8")) as DevState;
      const names = state.processes.map((p) => p.name);
      expect(names).toEqual(expect.arrayContaining(["containerd", "kubelet", "kube-proxy"]));
      expect(await leftoverDevices()).toContain(bridgeName);
      const socket = realNodePaths(dir).containerdSocket;
      expect(shimPids(socket).length).toBeGreaterThan(0); // CoreDNS runs

      const stopped = await dev("down");
      expect(stopped.code, stopped.stderr).toBe(0);
      for (const p of state.processes) expect(isRunning(p), `${p.name} still running`).toBe(false);
      expect(shimPids(socket)).toEqual([]);
      expect(mountsUnder(readFileSync("/proc/self/mountinfo", "utf8"), dir)).toEqual([]);
      expect(await leftoverDevices()).toEqual([]);
      expect(await podNetworkNamespaces()).toEqual([]);
      expect(await leftoverChains()).toEqual([]);
      expect(existsSync(dir)).toBe(false);
    } finally {
      await up({ dir: shared });
    }
  });
});
