import { spawn } from "node:child_process";
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
 * started it, unless SLIPWAY_TEST_KEEP=1); under `make test`, the type-check beside its start.
 */
export default async function setup(project: TestProject) {
  const check = startCheckBesidePlane();
  let teardown: (() => Promise<void>) | undefined;
  try {
    teardown = await providePlane(project);
  } catch (error) {
    check?.stop();
    throw error;
  }
  const failure = await check?.failure;
  if (failure) {
    await teardown?.();
    throw new Error(`${failure}: the run stops before its first test`);
  }
  return teardown;
}

/**
 * `make test` type-checks while the shared plane starts: the command SLIPWAY_TEST_BESIDE_START names
 * runs beside `up` (its output on the run's terminal), and a failure stops the run before any test,
 * as a failing phase before vitest did. Starting the plane (etcd, the API server, the real node's
 * containerd and image import) kept 0.6–0.8 of the two cores busy for its 35–45 s (`/proc` sampled
 * every 5 s over a run), and tsc takes one core for 30–45 s. Only the first project's setup runs it
 * (vitest sets up once per project, in one process): it takes the variable away.
 */
function startCheckBesidePlane(): { failure: Promise<string | undefined>; stop: () => void } | undefined {
  const command = process.env[checkBesidePlane];
  delete process.env[checkBesidePlane];
  if (!command) return undefined;
  const child = spawn("sh", ["-c", command], { stdio: "inherit" });
  const failure = new Promise<string | undefined>((settle) => {
    child.on("error", (error) => settle(`\`${command}\` could not start: ${error.message}`));
    child.on("exit", (code, signal) =>
      settle(code === 0 ? undefined : `\`${command}\` failed (${signal ?? `exit ${code}`})`),
    );
  });
  return { failure, stop: () => child.kill() };
}

const checkBesidePlane = "SLIPWAY_TEST_BESIDE_START";

async function providePlane(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const devDir = resolve(process.env.SLIPWAY_TEST_DEV_DIR ?? ".slipway/test");
  const external = process.env.SLIPWAY_TEST_KUBECONFIG;
  if (external) {
    project.provide("kubeconfig", resolve(external));
    project.provide("devDir", "");
    project.provide("realNodeSkipped", "SLIPWAY_TEST_KUBECONFIG names an external cluster");
    project.provide("planeOutlivesRun", true);
    return undefined;
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
