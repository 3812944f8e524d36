import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { DevStatus } from "../../src/dev/cluster.ts";
import { isRunning } from "../../src/dev/processes.ts";
import type { DevState } from "../../src/dev/state.ts";
import { privateDev, slipway } from "../support/cli.ts";

// A second, private control plane: this test stops and restarts its processes, which must not
// disturb the shared one the other tests use.
describe("slipway dev (its own control plane)", () => {
  it("up is idempotent, status reports a dead process, up restarts it, down stops everything", {
    timeout: 600_000,
  }, async () => {
    const { dir, dev } = await privateDev("slipway-dev-");

    const first = await dev("up", "--nodes", "2");
    expect(first.code, first.stderr).toBe(0);
    const kubeconfig = first.stdout.trim();
    expect(kubeconfig).toBe(join(dir, "kubeconfig"));
    const state = JSON.parse(readFileSync(join(dir, "state.json"), "utf8")) as DevState;
    const pids = new Map(state.processes.map((p) => [p.name, p.pid]));
    expect([...pids.keys()]).toEqual([
      "etcd",
      "kube-apiserver",
      "kube-controller-manager",
      "kube-scheduler",
      "kwok",
    ]);

    const again = await dev("up", "--nodes", "2");
    expect(again.code, again.stderr).toBe(0);
    const unchanged = JSON.parse(readFileSync(join(dir, "state.json"), "utf8")) as DevState;
    expect(new Map(unchanged.processes.map((p) => [p.name, p.pid]))).toEqual(pids);

    expect((await dev("env")).stdout.split("\n")[0]).toBe(`export KUBECONFIG=${kubeconfig}`);
    expect((await dev("env", "--path")).stdout).toBe(`${kubeconfig}\n`);
    expect((await dev("status")).code).toBe(0);

    const kwokPid = pids.get("kwok") as number;
    process.kill(kwokPid, "SIGKILL");
    const broken = await dev("status", "-o", "json");
    expect(broken.code).toBe(1);
    const report = JSON.parse(broken.stdout) as DevStatus;
    expect(report.components.find((c) => c.name === "kwok")?.running).toBe(false);
    expect(report.components.find((c) => c.name === "kube-apiserver")?.running).toBe(true);

    const healed = await dev("up", "--nodes", "2");
    expect(healed.code, healed.stderr).toBe(0);
    expect(healed.stderr).toContain("starting kwok (it had stopped)");
    expect((await dev("status")).code).toBe(0);

    const afterHeal = JSON.parse(readFileSync(join(dir, "state.json"), "utf8")) as DevState;
    const stopped = await dev("down");
    expect(stopped.code, stopped.stderr).toBe(0);
    for (const p of afterHeal.processes) expect(isRunning(p), `${p.name} still running`).toBe(false);
    expect(existsSync(dir)).toBe(false);
    expect((await dev("down")).code).toBe(0);
  });

  it("refuses a bad flag with one readable line and no stack trace", async () => {
    const result = await slipway(["dev", "--dir", join(tmpdir(), "never"), "up", "--nodes", "zero"]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe("error: --nodes must be a positive integer, not zero");
  });
});
