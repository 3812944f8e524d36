import { KubeConfig } from "@kubernetes/client-node";
import { UserError } from "./run.ts";

/** The kubeconfig a command was pointed at (`--kubeconfig`, else $KUBECONFIG or ~/.kube/config), at `--context` if given. */
export function loadKubeConfig(flags: { kubeconfig?: string; context?: string }): KubeConfig {
  const config = new KubeConfig();
  try {
    if (flags.kubeconfig) config.loadFromFile(flags.kubeconfig);
    else config.loadFromDefault();
  } catch (error) {
    const source = flags.kubeconfig ?? process.env.KUBECONFIG ?? "~/.kube/config";
    throw new UserError(`cannot read the kubeconfig ${source}: ${(error as Error).message}`);
  }
  if (flags.context) {
    if (!config.getContextObject(flags.context))
      throw new UserError(`--context: no context ${flags.context}`);
    config.setCurrentContext(flags.context);
  }
  if (!config.getCurrentCluster())
    throw new UserError("the kubeconfig names no current cluster (use --context)");
  return config;
}
