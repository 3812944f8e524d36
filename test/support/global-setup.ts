import { resolve } from "node:path";
import type { TestProject } from "vitest/node";
import { down, up } from "../../src/dev/cluster.ts";
import { readState } from "../../src/dev/state.ts";
import { startNamespaceJanitor } from "./namespace-janitor.ts";

declare module "vitest" {
  export interface ProvidedContext {
    kubeconfig: string;
    devDir: string;
    /** why the shared control plane has no real node ("" when it has one) */
    realNodeSkipped: string;
    /** whether the shared control plane keeps running after this run (it ran before, or SLIPWAY_TEST_KEEP=1) */
    planeOutlivesRun: boolean;
  }
}

/**
 * vitest runs this once per project, in one process: the projects after the first find the plane the
 * first started, which did not run before this run. The first records it here, so the others neither
 * take it for a plane that outlives the run (the teardown test then restarted its real node, 37 s at
 * the end) nor stop it again: the setup that started it stops it.
 */
const startedThisRun = "SLIPWAY_TEST_PLANE_STARTED_THIS_RUN";
const janitorStarted = "SLIPWAY_TEST_JANITOR_STARTED";

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
    project.provide("realNodeSkipped", "SLIPWAY_TEST_KUBECONFIG names an external cluster");
    project.provide("planeOutlivesRun", true);
    return;
  }
  const startedEarlierThisRun = process.env[startedThisRun] === devDir;
  const wasRunning = !startedEarlierThisRun && (await readState(devDir)) !== undefined;
  const startsIt = !startedEarlierThisRun && !wasRunning;
  // the shared plane gets the machine's real node (unless SLIPWAY_REAL_NODE=0); private ones never do
  const state = await up({ dir: devDir, log: (line) => console.error(`[control plane] ${line}`) });
  if (startsIt) process.env[startedThisRun] = devDir;
  project.provide("kubeconfig", state.kubeconfig);
  const olderPlane = `the control plane in ${devDir} was started without one: \`slipway dev down --dir ${devDir}\` and run again`;
  project.provide("realNodeSkipped", state.realNode ? "" : (state.realNodeSkipped ?? olderPlane));
  project.provide("devDir", devDir);
  const outlives = wasRunning || process.env.SLIPWAY_TEST_KEEP === "1";
  project.provide("planeOutlivesRun", outlives);
  // one janitor a run, in the first project's setup (namespace-janitor.ts)
  const firstSetup = process.env[janitorStarted] !== devDir;
  process.env[janitorStarted] = devDir;
  const stopJanitor = firstSetup ? startNamespaceJanitor(state.kubeconfig) : undefined;
  return async () => {
    const released = await stopJanitor?.();
    if (released)
      console.error(
        `[control plane] cleared the finalizers of ${released} objects in test namespaces whose operator had stopped`,
      );
    if (startsIt && !outlives) await down(devDir);
  };
}
