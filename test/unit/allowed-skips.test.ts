import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { realNodeHeldBy, realNodeTurnedOff } from "../../src/dev/real-node/skip-reasons.ts";
import { externalCluster, isAllowedSkip, judgeSkips, skipFor } from "../support/allowed-skips.ts";

describe("the allowed skips", () => {
  it("allow the reasons the dev plane and the test set-up give for no real node or no local plane", () => {
    expect(isAllowedSkip(realNodeHeldBy("/work/main/.slipway/dev"))).toBe(true);
    expect(isAllowedSkip(realNodeTurnedOff)).toBe(true);
    expect(isAllowedSkip(externalCluster)).toBe(true);
    // the set-up gives the external-cluster reason in its own words: the same ones
    const setup = readFileSync(new URL("../support/global-setup.ts", import.meta.url), "utf8");
    expect(setup).toContain(`"${externalCluster}"`);
  });

  it("refuse a missing tool set-up installs, or a machine that cannot run the real node", () => {
    expect(isAllowedSkip("no Python with the KFP SDK")).toBe(false);
    expect(isAllowedSkip("it needs root (containerd, the kubelet and iptables)")).toBe(false);
    expect(isAllowedSkip(`${realNodeHeldBy("/x")} (and more)`)).toBe(false);
  });

  it("skipFor skips with the reason in the test's meta, or not at all", () => {
    expect(skipFor("why")).toEqual({ skip: true, meta: { skipReason: "why" } });
    expect(skipFor("")).toEqual({ skip: false });
    expect(skipFor(undefined)).toEqual({ skip: false });
  });

  it("fails a run on a skip not on the list or without a reason, naming each; nothing to say without skips", () => {
    const verdict = judgeSkips(
      [
        { name: "b.test.ts › uses the real node", reason: realNodeTurnedOff },
        { name: "a.test.ts › todo", reason: undefined },
      ],
      { filtered: false },
    );
    expect(verdict).toEqual({
      fails: true,
      lines: [
        "2 skipped test(s), 1 for a reason not on the list (test/support/allowed-skips.ts): the run fails:",
        "  NOT ALLOWED: a.test.ts › todo — no reason given",
        `  allowed: b.test.ts › uses the real node — ${realNodeTurnedOff}`,
      ],
    });
    expect(judgeSkips([], { filtered: false })).toEqual({ lines: [], fails: false });
  });

  it("in a filtered run (-t, .only), a test skipped without a reason was only not selected", () => {
    const skipped = [
      { name: "a.test.ts › other", reason: undefined },
      { name: "a.test.ts › kfp", reason: "no Python" },
    ];
    expect(judgeSkips(skipped, { filtered: true })).toEqual({
      fails: true,
      lines: [
        "1 skipped test(s), 1 for a reason not on the list (test/support/allowed-skips.ts): the run fails:",
        "  NOT ALLOWED: a.test.ts › kfp — no Python",
      ],
    });
    expect(judgeSkips(skipped.slice(0, 1), { filtered: true })).toEqual({ lines: [], fails: false });
  });
});
