/**
 * `slipway update` with the operator in the cluster: applies this release's bundle (CRD changes
 * included) and waits for the operator Deployment's rollout before the Platform's version changes.
 */
import type { V1Container, V1Deployment } from "@kubernetes/client-node";
import { type BundleOptions, operatorName, servesFromArgs } from "../../bundle/bundle.ts";
import { grantsFor } from "../../bundle/grants.ts";
import { ApiError } from "../../kube/rest.ts";
import type { KubeObject } from "../../kube/types.ts";
import { runFinalizerPolicyTypes } from "../../pipelines/run-finalizer-policy.ts";
import { ownVersion } from "../../platform/catalog.ts";
import { workloadRolloutUnfinished, workloadView } from "../../platform/component-status.ts";
import { UserError } from "../run.ts";
import type { PlatformContext } from "./context.ts";
import { sleep } from "./follow.ts";
import { type InstallerPolicy, installerPolicyFromEnv } from "./installer-policy.ts";

const operatorDeployment = (namespace: string): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: operatorName, namespace },
});

/**
 * This release's bundle for the context's namespace, granting the api-server of the context's
 * platform, its operator serving `serves` (default: its own namespace) with the installer's `policy`.
 */
export async function platformReleaseBundle(
  context: PlatformContext,
  serves?: BundleOptions["serves"],
  policy: InstallerPolicy = {},
): Promise<KubeObject[]> {
  const { releaseBundle } = await import("../../bundle/release.ts");
  const options = { grants: grantsFor(context.flags.platform), ...(serves ? { serves } : {}), ...policy };
  return releaseBundle(context.namespace, options) as KubeObject[];
}

/** The operator Deployment's container; undefined when it does not run in the cluster. */
async function operatorContainer(context: PlatformContext): Promise<V1Container | undefined> {
  const deployment = await context.read<V1Deployment>(operatorDeployment(context.namespace));
  return deployment?.spec?.template.spec?.containers[0];
}

/** The operator Deployment's container arguments; undefined when it does not run in the cluster. */
export async function operatorArgs(context: PlatformContext): Promise<string[] | undefined> {
  return (await operatorContainer(context))?.args;
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
  // the operator keeps serving the namespaces it was installed for, with the installer's policy
  const container = await operatorContainer(context);
  const serves = container?.args ? servesFromArgs(container.args) : undefined;
  const policy = installerPolicyFromEnv(container?.env);
  for (const object of await servedObjects(context, await platformReleaseBundle(context, serves, policy)))
    await context.apply(object as KubeObject);
  context.say(`applied the ${version} release bundle; waiting for the operator`);
  await waitForOperatorRollout(context, version, deadline);
}

/** Waits until the operator Deployment of the context's namespace has rolled out (its pods ready). */
export async function waitForOperatorRollout(context: PlatformContext, version: string, deadline: number) {
  for (;;) {
    const d = await context.read<V1Deployment>(operatorDeployment(context.namespace));
    const unfinished = d ? workloadRolloutUnfinished(workloadView(d)) : "the operator Deployment is gone";
    if (!unfinished) return;
    if (Date.now() > deadline)
      throw new UserError(`timed out waiting for the ${version} operator to roll out (${unfinished})`);
    await sleep(500);
  }
}

/** Kinds a release installs only where the API server serves them: the Run finalizer policy's (Kubernetes 1.36). */
const optionalTypes = runFinalizerPolicyTypes;
const optionalApi = `${optionalTypes[0].group}/${optionalTypes[0].version}`;

/** Pure: `objects` without those of an optional kind that is not in `served` (the kinds the server serves). */
export function withoutUnservedOptional(objects: KubeObject[], served: Set<string>): KubeObject[] {
  const optional = new Set<string>(optionalTypes.map((type) => type.kind));
  return objects.filter((object) => !optional.has(object.kind ?? "") || served.has(object.kind ?? ""));
}

/** The kinds the API server serves in the optional kinds' group-version (none when it serves no such version). */
export async function servedOptionalKinds(context: PlatformContext): Promise<Set<string>> {
  const list = await context.call(() =>
    context.rest.request<{ resources: { kind: string }[] }>("GET", `/apis/${optionalApi}`).catch((error) => {
      if (error instanceof ApiError && error.status === 404) return { resources: [] };
      throw error;
    }),
  );
  return new Set(list.resources.map((resource) => resource.kind));
}

/**
 * The objects an install or update can apply here: an older API server (before Kubernetes 1.36, no
 * MutatingAdmissionPolicy in admissionregistration.k8s.io/v1) gets the release without the Run
 * finalizer policy, and is told so; the operator then adds its finalizer to each Run itself.
 */
export async function servedObjects(context: PlatformContext, objects: KubeObject[]): Promise<KubeObject[]> {
  const kept = withoutUnservedOptional(objects, await servedOptionalKinds(context));
  if (kept.length < objects.length) {
    context.say(
      `the API server does not serve MutatingAdmissionPolicy (${optionalApi}): skipped the Run finalizer policy; the operator adds its finalizer to each Run itself`,
    );
  }
  return kept;
}
