/**
 * `slipway update` with the operator in the cluster: applies this release's bundle (CRD changes
 * included) and waits for the operator Deployment's rollout before the Platform's version changes.
 */
import type { V1Deployment } from "@kubernetes/client-node";
import { type BundleOptions, operatorName, servesFromArgs } from "../../bundle/bundle.ts";
import { grantsFor } from "../../bundle/grants.ts";
import type { KubeObject } from "../../kube/types.ts";
import { ownVersion } from "../../platform/catalog.ts";
import { workloadRolloutUnfinished, workloadView } from "../../platform/component-status.ts";
import { UserError } from "../run.ts";
import type { PlatformContext } from "./context.ts";
import { sleep } from "./follow.ts";

const operatorDeployment = (namespace: string): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: operatorName, namespace },
});

/**
 * This release's bundle for the context's namespace, granting the api-server of the context's
 * platform, its operator serving `serves` (default: its own namespace).
 */
export async function platformReleaseBundle(
  context: PlatformContext,
  serves?: BundleOptions["serves"],
): Promise<KubeObject[]> {
  const { releaseBundle } = await import("../../bundle/release.ts");
  const options = { grants: grantsFor(context.flags.platform), ...(serves ? { serves } : {}) };
  return releaseBundle(context.namespace, options) as KubeObject[];
}

/** The operator Deployment's container arguments; undefined when it does not run in the cluster. */
export async function operatorArgs(context: PlatformContext): Promise<string[] | undefined> {
  const deployment = await context.read<V1Deployment>(operatorDeployment(context.namespace));
  return deployment?.spec?.template.spec?.containers[0]?.args;
}

/** False when the operator runs outside the cluster (`install --dev`): then there is no bundle to apply. */
export async function operatorInCluster(context: PlatformContext): Promise<boolean> {
  return (await context.read(operatorDeployment(context.namespace))) !== undefined;
}

export async function applyBundleAndWait(context: PlatformContext, version: string, deadline: number) {
  if (version !== ownVersion) {
    throw new UserError(
      `this CLI carries the bundle of release ${ownVersion}, not ${version}: use the ${version} CLI to update the operator`,
    );
  }
  // the operator keeps serving the namespaces it was installed for
  const args = await operatorArgs(context);
  const serves = args ? servesFromArgs(args) : undefined;
  for (const object of await platformReleaseBundle(context, serves))
    await context.apply(object as KubeObject);
  context.say(`applied the ${version} release bundle; waiting for the operator`);
  for (;;) {
    const d = await context.read<V1Deployment>(operatorDeployment(context.namespace));
    const unfinished = d ? workloadRolloutUnfinished(workloadView(d)) : "the operator Deployment is gone";
    if (!unfinished) return;
    if (Date.now() > deadline)
      throw new UserError(`timed out waiting for the ${version} operator to roll out (${unfinished})`);
    await sleep(500);
  }
}
