import { spawn } from "node:child_process";
import { join } from "node:path";
import { CoreV1Api, KubeConfig, VersionApi } from "@kubernetes/client-node";
import { releases } from "../platform/catalog.ts";
import { up } from "./cluster.ts";
import { demoUserToken } from "./demo-user.ts";
import { packageRoot } from "./paths.ts";
import { devNamespace, startPlatformServices } from "./platform-services.ts";

/** The release the demo installs (the catalog's oldest, so there is one to update to) and the newest. */
export function demoReleases(): { install: string; updateTo: string } {
  const oldest = releases[0];
  const newest = releases[releases.length - 1];
  if (!oldest || !newest) throw new Error("the release catalog is empty");
  return { install: oldest.version, updateTo: newest.version };
}

/** What the demo prints at the end: the UI, the token, and how to update from the CLI and the UI. */
export function demoClosing(uiAddress: string, token: string, kubeconfig: string): string[] {
  const { install, updateTo } = demoReleases();
  const update = new URL("update", uiAddress).toString();
  return [
    `\nUI: ${uiAddress}   (sign in with this token, valid for a day:)\n${token}`,
    `export KUBECONFIG=${kubeconfig}\nbin/slipway status`,
    install === updateTo
      ? `release ${install} is the only one the catalog knows: nothing to update to`
      : `release ${install} is installed; update it to ${updateTo} from the CLI:\n  bin/slipway update --version ${updateTo}\nor from the UI's Update page: ${update}`,
    "then: bin/slipway dev down",
  ];
}

/**
 * The README's demo: brings up the local control plane and shows it working (the pinned version,
 * Ready fake nodes), starts the operator (serving every namespace) and server, installs the
 * catalog's oldest release until it is Running, prints the UI's address and how to update. Leaves
 * it all running to explore.
 */
export async function demo(dir: string, print: (line: string) => void): Promise<void> {
  const started = Date.now();
  const state = await up({ dir, log: print });
  const config = new KubeConfig();
  config.loadFromFile(state.kubeconfig);
  const version = await config.makeApiClient(VersionApi).getCode();
  print(`kube-apiserver ${version.gitVersion} ready in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  const core = config.makeApiClient(CoreV1Api);
  for (const node of (await core.listNode()).items) {
    const ready = node.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";
    print(`node ${node.metadata?.name} ${ready ? "Ready" : "NotReady"}`);
  }
  const services = await startPlatformServices(dir, state.kubeconfig, print);
  const release = demoReleases().install;
  print(`operator and server running; installing release ${release} into namespace ${devNamespace}`);
  const code = await new Promise<number>((resolve, reject) => {
    const install = spawn(
      process.execPath,
      [
        join(packageRoot, "src/cli/main.ts"),
        "install",
        "--dev",
        "--version",
        release,
        "--kubeconfig",
        state.kubeconfig,
        "-n",
        devNamespace,
      ],
      { stdio: "inherit" },
    );
    install.once("error", reject);
    install.once("exit", (exitCode) => resolve(exitCode ?? 1));
  });
  if (code !== 0) throw new Error(`slipway install exited with ${code}`);
  const token = await demoUserToken(config, devNamespace);
  for (const line of demoClosing(services.uiAddress, token, state.kubeconfig)) print(line);
}
