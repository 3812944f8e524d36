import { spawn } from "node:child_process";
import { join } from "node:path";
import { CoreV1Api, KubeConfig, VersionApi } from "@kubernetes/client-node";
import { up } from "./cluster.ts";
import { demoUserToken } from "./demo-user.ts";
import { packageRoot } from "./paths.ts";
import { devNamespace, startPlatformServices } from "./platform-services.ts";

/**
 * The README's demo: brings up the local control plane and shows it working (the pinned version,
 * Ready fake nodes), starts the operator and server, installs the platform until it is Running and
 * prints the UI's address. Leaves it all running to explore.
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
  print(`operator and server running; installing the platform into namespace ${devNamespace}`);
  const code = await new Promise<number>((resolve, reject) => {
    const install = spawn(
      process.execPath,
      [
        join(packageRoot, "src/cli/main.ts"),
        "install",
        "--dev",
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
  print(`\nUI: ${services.uiAddress}   (sign in with this token, valid for a day:)\n${token}`);
  print(`export KUBECONFIG=${state.kubeconfig}\nbin/slipway status   # then: bin/slipway dev down`);
}
