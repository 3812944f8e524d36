import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import DurationSequencer from "./test/support/duration-sequencer.ts";

/**
 * The integration files mostly wait on the control plane, so more of them run at once than the
 * machine has cores (SLIPWAY_TEST_WORKERS overrides). They can: each works in namespaces of its own,
 * and an operator a file starts for the whole cluster reconciles only that file's namespaces
 * (test/support/cluster.ts `isOwnNamespace`).
 */
const integrationWorkers =
  Number(process.env.SLIPWAY_TEST_WORKERS) || Math.max(3, availableParallelism() + 1);

/**
 * Unit files run in the same group as the integration files (vitest requires one worker count per
 * group): ordered longest first (test/support/duration-sequencer.ts), they fill the workers while the
 * last integration files finish instead of running before the first one starts.
 */
const workers = integrationWorkers;

/** Files that take something every other file uses away for a while: they run one at a time, after the rest. */
const alone = [
  "test/e2e/real-node-teardown.test.ts", // steps the shared plane's real node aside (one per machine)
];

/**
 * Files that need a module graph of their own: they set what a library reads once, when it is loaded
 * (grpc-js's root certificates), or the process's default CA store, or prove what this process
 * connected to. Every other integration file shares its worker's (isolate: false, below).
 */
const isolated = [
  "test/integration/pipelines/outbound.test.ts",
  "test/integration/pipelines/vertex-key-secret.test.ts",
  "test/integration/pipelines/vertex.test.ts",
];

const controlPlane: { environment: string; globalSetup: string[]; testTimeout: number; hookTimeout: number } =
  {
    environment: "node",
    // one control plane per test run, shared by every file (see test/support/global-setup.ts)
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 300_000,
  };

export default defineConfig({
  test: {
    reporters: ["default", "./test/support/summary-reporter.ts"],
    sequence: { sequencer: DurationSequencer },
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          environment: "node",
          // a bound on a hang, not a speed check: unit files share the run with the integration
          // files (a load of 10-20 on two cores), where rendering the whole bundle or starting a
          // nested vitest took over vitest's default 5 s
          testTimeout: 30_000,
          // One module graph per worker, not per file: importing src and its libraries again for each
          // of 137 files was three quarters of the unit files' CPU (74 s of user time against 17 s
          // shared). Unit files keep no state in the modules they share (they pass in any order,
          // shuffled, on one to three workers).
          isolate: false,
          maxWorkers: workers,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          ...controlPlane,
          name: "integration",
          include: ["test/integration/**/*.test.ts", "test/e2e/**/*.test.ts"],
          exclude: [...alone, ...isolated],
          // as the unit files: src, the Kubernetes client and the rest imported once per worker
          // (vitest's "import" time of a whole run: 410 s when each file imported them, 130–150 s now)
          isolate: false,
          maxWorkers: workers,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          ...controlPlane,
          name: "integration-isolated",
          include: isolated,
          maxWorkers: workers,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          ...controlPlane,
          name: "integration-alone",
          include: alone,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
