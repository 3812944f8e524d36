import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    reporters: ["default", "./test/support/summary-reporter.ts"],
    projects: [
      {
        test: { name: "unit", include: ["test/unit/**/*.test.ts"], environment: "node" },
      },
      {
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts", "test/e2e/**/*.test.ts"],
          environment: "node",
          // one control plane per test run, shared by every file (see test/support/control-plane.ts)
          globalSetup: ["test/support/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
