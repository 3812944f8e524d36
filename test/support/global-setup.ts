import { resolve } from "node:path";
import type { TestProject } from "vitest/node";
import { down, up } from "../../src/dev/cluster.ts";
import { readState } from "../../src/dev/state.ts";

declare module "vitest" {
  export interface ProvidedContext {
    kubeconfig: string;
    devDir: string;
  }
}

/**
 * One control plane for the whole test run: the one named by SLIPWAY_TEST_KUBECONFIG if set, else
 * `slipway dev up` in .slipway/test (reused if already running; stopped afterwards only if this run
 * started it, unless SLIPWAY_TEST_KEEP=1).
 */
export default async function setup(project: TestProject) {
  const devDir = resolve(process.env.SLIPWAY_TEST_DEV_DIR ?? ".slipway/test");
  const external = process.env.SLIPWAY_TEST_KUBECONFIG;
  if (external) {
    project.provide("kubeconfig", resolve(external));
    project.provide("devDir", "");
    return;
  }
  const wasRunning = (await readState(devDir)) !== undefined;
  const state = await up({ dir: devDir, log: (line) => console.error(`[control plane] ${line}`) });
  project.provide("kubeconfig", state.kubeconfig);
  project.provide("devDir", devDir);
  return async () => {
    if (!wasRunning && process.env.SLIPWAY_TEST_KEEP !== "1") await down(devDir);
  };
}
