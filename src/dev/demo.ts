import { spawn } from "node:child_process";
import { join } from "node:path";
import { KubeConfig, type V1NodeList } from "@kubernetes/client-node";
import { nodeType } from "../kube/core-types.ts";
import { resourcePath } from "../kube/keys.ts";
import { releases } from "../platform/catalog.ts";
import { up } from "./cluster.ts";
import { demoUserToken } from "./demo-user.ts";
import { buildDemoImage, type DemoTarget, mlflowAddress, runDemoPipeline } from "./demo-work.ts";
import { withDevClient } from "./dev-client.ts";
import { packageRoot } from "./paths.ts";
import { devNamespace, startPlatformServices } from "./platform-services.ts";
import { newestRelease } from "./real-node/images.ts";
import { installServiceLookup } from "./service-lookup.ts";

/** The release the demo installs (the catalog's oldest, so there is one to update to) and the newest. */
export function demoReleases(): { install: string; updateTo: string } {
  const oldest = releases[0];
  const newest = releases[releases.length - 1];
  if (!oldest || !newest) throw new Error("the release catalog is empty");
  return { install: oldest.version, updateTo: newest.version };
}

/** What the demo did on the real node: the release running there, MLflow's address, the image built, the run. */
export interface RealDemo {
  release: string;
  mlflow?: string;
  image: string;
  run: string;
}

/** What the demo prints at the end: the UI, the token, and how to update from the CLI and the UI (kwok only). */
export function demoClosing(uiAddress: string, token: string, kubeconfig: string, real?: RealDemo): string[] {
  const { install, updateTo } = demoReleases();
  const update = new URL("update", uiAddress).toString();
  const next = real
    ? [
        `release ${real.release} runs on the real node (the newest: the node holds only its images)`,
        `MLflow: ${real.mlflow ?? "(no running pod)"}   (pods: the platform's mlflow Service, MLFLOW_TRACKING_URI in every step)`,
        `image built with buildah (a Job on the real node) into the platform's registry: ${real.image}`,
        `pipeline run demo-1: ${real.run}`,
        `pages to open: ${["builds/slipway/demo-model", "pipelines/slipway/demo", "runs/slipway/demo-1", "providers?namespace=slipway"].map((page) => new URL(page, uiAddress).toString()).join("  ")}`,
        'a second team: bin/slipway dev team team-b   (its namespace, a member account without Secrets, the platform\'s Provider allowing it; README, "Teams on the dev plane")',
      ]
    : [
        install === updateTo
          ? `release ${install} is the only one the catalog knows: nothing to update to`
          : `release ${install} is installed; update it to ${updateTo} from the CLI:\n  bin/slipway update --version ${updateTo}\nor from the UI's Update page: ${update}`,
      ];
  return [
    `\nUI: ${uiAddress}   (sign in with this token, valid for a day:)\n${token}`,
    `export KUBECONFIG=${kubeconfig}\nbin/slipway status`,
    ...next,
    "then: bin/slipway dev down",
  ];
}

/** `slipway install --dev` of `release` into the dev namespace, its output shown; throws unless it exits 0. */
async function install(kubeconfig: string, release: string, extra: string[]): Promise<void> {
  const args = [
    "install",
    "--dev",
    "--version",
    release,
    ...extra,
    "--kubeconfig",
    kubeconfig,
    "-n",
    devNamespace,
  ];
  const code = await new Promise<number>((resolve, reject) => {
    const child = spawn(process.execPath, [join(packageRoot, "src/cli/main.ts"), ...args], {
      stdio: "inherit",
    });
    child.once("error", reject);
    child.once("exit", (exitCode) => resolve(exitCode ?? 1));
  });
  if (code !== 0) throw new Error(`slipway install exited with ${code}`);
}

/** The CLI's default platform, the one `install` creates in the dev namespace. */
const target: DemoTarget = { namespace: devNamespace, platform: "slipway" };

/**
 * On the real node: the newest release placed there, then an image built (the dev operator's buildah
 * Job on the node, sent to the platform's registry by the override the Platform writes and vouches
 * for) and a pipeline run on the platform's Provider.
 */
async function realDemo(
  config: KubeConfig,
  kubeconfig: string,
  print: (line: string) => void,
): Promise<RealDemo> {
  const release = newestRelease().version;
  print(
    `operator and server running; installing release ${release} on the real node into namespace ${devNamespace}`,
  );
  await install(kubeconfig, release, ["--real-node"]);
  print(
    "building an image (ImageBuild demo-model, a buildah Job on the real node, into the platform's registry)",
  );
  // the build context goes to the platform's object store by its Service name, as a pod would reach it
  const undoLookup = installServiceLookup(kubeconfig);
  const built = await buildDemoImage(config, target).finally(undoLookup);
  print(`running a pipeline (Pipeline demo, Run demo-1) on the platform's Provider ${target.platform}`);
  const run = (await runDemoPipeline(config, target, release)).status;
  const artifact = run?.artifacts?.[0]?.location;
  return {
    release,
    mlflow: await mlflowAddress(config, target),
    image: `${built.status?.image}@${built.status?.digest}`,
    run: `${run?.completionState}${artifact ? `, its model at ${artifact}` : ""}`,
  };
}

/**
 * The README's demo: brings up the local control plane and shows it working (the pinned version,
 * Ready nodes), starts the operator (serving every namespace) and server. With the real node: installs
 * the newest release there until Running for real, builds an image and runs a pipeline, and prints
 * the UI's and MLflow's addresses. Without it (kwok only): installs the catalog's oldest release
 * until Running and prints how to update. Leaves it all running to explore.
 */
export async function demo(dir: string, print: (line: string) => void): Promise<void> {
  const started = Date.now();
  const state = await up({ dir, log: print });
  const config = new KubeConfig();
  config.loadFromFile(state.kubeconfig);
  const [version, nodes] = await withDevClient(config, ({ rest }) =>
    Promise.all([
      rest.request<{ gitVersion?: string }>("GET", "/version"),
      rest.request<V1NodeList>("GET", resourcePath(nodeType)),
    ]),
  );
  print(`kube-apiserver ${version.gitVersion} ready in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  for (const node of nodes.items) {
    const ready = node.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";
    print(`node ${node.metadata?.name} ${ready ? "Ready" : "NotReady"}`);
  }
  const services = await startPlatformServices(dir, state.kubeconfig, print);
  let real: RealDemo | undefined;
  if (state.realNode) real = await realDemo(config, state.kubeconfig, print);
  else {
    const release = demoReleases().install;
    print(`no real node (${state.realNodeSkipped ?? "not wanted"}): the platform runs on kwok's fake nodes`);
    print(`operator and server running; installing release ${release} into namespace ${devNamespace}`);
    await install(state.kubeconfig, release, []);
  }
  const token = await demoUserToken(config, devNamespace);
  for (const line of demoClosing(services.uiAddress, token, state.kubeconfig, real)) print(line);
}
