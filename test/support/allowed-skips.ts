/**
 * A skipped test is a failed run unless its reason is on this list (README, "Tests"). A test or suite
 * that may be skipped takes `skipFor(reason)` as its options, so the summary reporter
 * (test/support/summary-reporter.ts) knows why; `it.skip`, `it.todo` and any other skip have no reason
 * and fail the run too. Missing tools (Python and the KFP SDK, nats-server, root, containerd) are not on
 * the list: set-up installs them.
 */
import { realNodeHeldPattern, realNodeTurnedOff } from "../../src/dev/real-node/skip-reasons.ts";

declare module "vitest" {
  interface TaskMeta {
    /** Why the test (or its suite) is skipped: set by `skipFor`. */
    skipReason?: string;
  }
}

/** The external-cluster reason, as test/support/global-setup.ts gives it. */
export const externalCluster = "SLIPWAY_TEST_KUBECONFIG names an external cluster";

export interface AllowedSkip {
  /** What the list says of it. */
  what: string;
  matches: (reason: string) => boolean;
}

export const allowedSkips: readonly AllowedSkip[] = [
  {
    what: "no real node: another directory on this machine holds the machine's one real node",
    matches: (reason) => realNodeHeldPattern.test(reason),
  },
  {
    what: "no real node: its person turned it off (SLIPWAY_REAL_NODE=0 or --no-real-node)",
    matches: (reason) => reason === realNodeTurnedOff,
  },
  {
    what: "the tests run on an external cluster (SLIPWAY_TEST_KUBECONFIG): no local plane, no real node",
    matches: (reason) => reason === externalCluster,
  },
];

export const isAllowedSkip = (reason: string): boolean =>
  allowedSkips.some((allowed) => allowed.matches(reason));

/**
 * The options of a test or suite skipped when `reason` is not empty (a suite's tests inherit it):
 * `describe(name, skipFor(why), () => …)`.
 */
export function skipFor(reason: string | undefined): { skip: boolean; meta?: { skipReason: string } } {
  return reason ? { skip: true, meta: { skipReason: reason } } : { skip: false };
}

export interface SkippedTest {
  /** The file and the test's full name. */
  name: string;
  /** From `skipFor` or `ctx.skip(note)`; none for `it.skip`, `it.todo` or a filter. */
  reason: string | undefined;
}

export interface SkipVerdict {
  /** One line per skipped test, with its reason and whether the list allows it. */
  lines: string[];
  /** Whether a skip fails the run. */
  fails: boolean;
}

/**
 * Judges a run's skipped tests. In a filtered run (`-t`, `.only`) a test skipped without a reason was
 * merely not selected: neither named nor failing.
 */
export function judgeSkips(skipped: readonly SkippedTest[], options: { filtered: boolean }): SkipVerdict {
  const judged = skipped
    .filter((test) => test.reason !== undefined || !options.filtered)
    .map((test) => ({ ...test, allowed: test.reason !== undefined && isAllowedSkip(test.reason) }))
    .sort((a, b) => a.name.localeCompare(b.name));
  if (judged.length === 0) return { lines: [], fails: false };
  const refused = judged.filter((test) => !test.allowed).length;
  return {
    lines: [
      `${judged.length} skipped test(s)${refused ? `, ${refused} for a reason not on the list (test/support/allowed-skips.ts): the run fails` : ""}:`,
      ...judged.map(
        (test) =>
          `  ${test.allowed ? "allowed" : "NOT ALLOWED"}: ${test.name} — ${test.reason ?? "no reason given"}`,
      ),
    ],
    fails: refused > 0,
  };
}
